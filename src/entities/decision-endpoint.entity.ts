import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Index, ManyToOne, Property, type Rel } from '@mikro-orm/core';
import { Agent } from './agent.entity.js';
import { PhoneNumber } from './phone-number.entity.js';

// The endpoint a company asks how to route an inbound call, for the company or one of its numbers, with its deadline
// and the fallback applied when it does not answer in time (docs/adr/0068-decisions-in-the-call-path.md). One per
// scope: a unique expression index (a company's own scope has no number), written in
// Migration20261128040000_call_routing and declared here by name and statement.

@Entity({ tableName: 'decision_endpoints' })
@Index({
  name: 'decision_endpoints_scope_unique',
  expression:
    'create unique index "decision_endpoints_scope_unique" on "decision_endpoints" ("company_id", coalesce("phone_number_id", 0))',
})
export class DecisionEndpoint extends CompanyOwned {
  @ManyToOne(() => PhoneNumber, { nullable: true, deleteRule: 'cascade', updateRule: 'cascade', index: false })
  phoneNumber?: Rel<PhoneNumber> | null;

  @Property({ type: 'text' })
  url!: string;

  @Property({ type: 'text', hidden: true })
  secretSealed!: string;

  @Property({ type: 'integer', default: 2000 })
  deadlineMs = 2000;

  @Property({ type: 'boolean', default: false })
  hedge = false;

  /** answer, forward or reject. */
  @Property({ type: 'string', length: 16 })
  fallbackAction!: string;

  @ManyToOne(() => Agent, { nullable: true, deleteRule: 'set null', updateRule: 'cascade', index: false })
  fallbackAgent?: Rel<Agent> | null;

  @Property({ type: 'string', length: 16, nullable: true })
  fallbackForwardTo?: string | null;

  @Property({ type: 'text', nullable: true, hidden: true })
  credentialsSealed?: string | null;
}
