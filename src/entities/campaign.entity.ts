import { Entity, Index, ManyToOne, Property, type Opt, type Rel } from '@mikro-orm/core';
import { Agent } from './agent.entity.js';
import { CompanyOwned } from './company-owned.js';

/** A dialer campaign: draft, then running (started), then completed. */
@Entity({ tableName: 'campaigns' })
@Index({ properties: ['company', 'createdAt'] })
export class Campaign extends CompanyOwned {
  @Property({ length: 255 }) name!: string;
  /** draft, running or completed */
  @Property({ length: 16, default: 'draft' }) status: Opt<string> = 'draft';
  @ManyToOne(() => Agent, { nullable: true, deleteRule: 'set null' }) agent?: Rel<Agent> | null;
  @Property({ type: 'datetime', nullable: true }) startedAt?: Date | null;
  @Property({ type: 'datetime', nullable: true }) completedAt?: Date | null;
}
