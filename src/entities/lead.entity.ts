import { Entity, Index, ManyToOne, Property, type Rel } from '@mikro-orm/core';
import { Campaign } from './campaign.entity.js';
import { CompanyOwned } from './company-owned.js';
import { Contact } from './contact.entity.js';
import { PipelineStage } from './pipeline-stage.entity.js';

/** A contact in a dialer campaign or a pipeline stage. */
@Entity({ tableName: 'leads' })
@Index({ properties: ['company', 'createdAt'] })
export class Lead extends CompanyOwned {
  @ManyToOne(() => Contact, { deleteRule: 'cascade' }) contact!: Rel<Contact>;
  @ManyToOne(() => Campaign, { nullable: true, deleteRule: 'set null' }) campaign?: Rel<Campaign> | null;
  @ManyToOne(() => PipelineStage, { nullable: true, deleteRule: 'set null' }) pipelineStage?: Rel<PipelineStage> | null;
  @Property({ length: 64, nullable: true }) source?: string | null;
}
