import { Entity, Index, Property, type Opt } from '@mikro-orm/core';
import { CompanyOwned } from './company-owned.js';

/** An AI voice agent of a company. */
@Entity({ tableName: 'agents' })
@Index({ properties: ['company', 'name'] })
@Index({
  name: 'agents_name_trgm_index',
  expression: 'create index "agents_name_trgm_index" on "agents" using gin ("name" gin_trgm_ops)',
})
export class Agent extends CompanyOwned {
  @Property({ length: 255 })
  name!: string;

  /** Inactive agents are kept for history but cannot be assigned. */
  @Property({ default: true })
  active: Opt<boolean> = true;

  /** Online agents take calls now. */
  @Property({ default: false })
  online: Opt<boolean> = false;

  /** Per metric, `above` or `below` its threshold when last measured (agent.performance fires on a change). */
  @Property({ type: 'json', default: '{}' })
  performanceState: Opt<Record<string, 'above' | 'below'>> = {};
}
