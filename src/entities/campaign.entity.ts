import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Index, ManyToOne, Property, type Rel } from '@mikro-orm/core';
import { Agent } from './agent.entity.js';

/** A dialer campaign of a company, and the agent that dials it. */
@Entity({ tableName: 'campaigns' })
@Index({ name: 'campaigns_company_id_created_at_index', properties: ['company', 'createdAt'] })
export class Campaign extends CompanyOwned {
  @Property({ type: 'string', length: 255 })
  name!: string;

  /** draft, running or completed (kernel/vocabulary.ts CAMPAIGN_STATUSES). */
  @Property({ type: 'string', length: 16, default: 'draft' })
  status = 'draft';

  @ManyToOne(() => Agent, { nullable: true, deleteRule: 'set null', updateRule: 'cascade', index: false })
  agent?: Rel<Agent> | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  startedAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  completedAt?: Date | null;
}
