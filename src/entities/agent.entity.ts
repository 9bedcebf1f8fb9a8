import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Index, type Opt, Property } from '@mikro-orm/core';

// A company's AI agent. The trigram index of its name (the list's search) is an operator-class index written in
// Migration20261123101500_list_indexes, declared here by name and statement.

@Entity({ tableName: 'agents' })
@Index({ name: 'agents_company_id_name_index', properties: ['company', 'name'] })
@Index({
  name: 'agents_name_trgm_index',
  expression: 'create index "agents_name_trgm_index" on "agents" using gin ("name" gin_trgm_ops)',
})
export class Agent extends CompanyOwned {
  @Property({ type: 'string', length: 255 })
  name!: string;

  @Property({ type: 'boolean', default: true })
  active: Opt<boolean> = true;

  @Property({ type: 'boolean', default: false })
  online: Opt<boolean> = false;

  /** Where its answer rate and sentiment stood against their thresholds (services/agent-performance.ts). */
  @Property({ type: 'json', default: '{}' })
  performanceState: Opt<Record<string, 'above' | 'below'>> = {};
}
