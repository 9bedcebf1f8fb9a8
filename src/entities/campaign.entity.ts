import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Formula, Index, ManyToOne, type Opt, Property, type Rel } from '@mikro-orm/core';
import { Agent } from './agent.entity.js';

/** A dialer campaign of a company, and the agent that dials it. */
@Entity({ tableName: 'campaigns' })
@Index({ name: 'campaigns_company_id_created_at_index', properties: ['company', 'createdAt'] })
export class Campaign extends CompanyOwned {
  @Property({ type: 'string', length: 255 })
  name!: string;

  /** draft, running or completed (kernel/vocabulary.ts CAMPAIGN_STATUSES). */
  @Property({ type: 'string', length: 16, default: 'draft' })
  status: Opt<string> = 'draft';

  @ManyToOne(() => Agent, { nullable: true, deleteRule: 'set null', updateRule: 'cascade', index: false })
  agent: Rel<Agent> | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  startedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  completedAt: Date | null = null;

  /** How many leads it has: read only when asked for (`populate: ['leads']`), in the same statement. */
  @Formula((alias) => `(select count(*)::int from leads l where l.campaign_id = ${alias}.id)`, {
    type: 'integer',
    lazy: true,
  })
  leads?: number;
}
