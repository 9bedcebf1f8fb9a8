import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Index, ManyToOne, Property, type Rel } from '@mikro-orm/core';
import { Campaign } from './campaign.entity.js';
import { Contact } from './contact.entity.js';
import { PipelineStage } from './pipeline-stage.entity.js';

/** A contact as a lead: the campaign it came from, where it stands in a pipeline, and its source. */
@Entity({ tableName: 'leads' })
@Index({ name: 'leads_company_id_created_at_index', properties: ['company', 'createdAt'] })
export class Lead extends CompanyOwned {
  @ManyToOne(() => Contact, { deleteRule: 'cascade', updateRule: 'cascade', index: false })
  contact!: Rel<Contact>;

  @ManyToOne(() => Campaign, { nullable: true, deleteRule: 'set null', updateRule: 'cascade', index: false })
  campaign: Rel<Campaign> | null = null;

  @ManyToOne(() => PipelineStage, { nullable: true, deleteRule: 'set null', updateRule: 'cascade', index: false })
  pipelineStage: Rel<PipelineStage> | null = null;

  @Property({ type: 'string', length: 64, nullable: true })
  source: string | null = null;
}
