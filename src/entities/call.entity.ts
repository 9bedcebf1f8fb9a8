import { CompanyOwned } from './company-owned.entity.js';
import { Embedded, Entity, Index, ManyToOne, type Opt, Property, type Rel } from '@mikro-orm/core';
import { Agent } from './agent.entity.js';
import { CallDecisionRecord } from './call-decision.embeddable.js';
import { Contact } from './contact.entity.js';

// A call of a company, as the provider's callbacks and the agent's analysis filled it in. The appointment lists' two
// partial indexes (newest first, calls that booked) are written in Migration20261123101500_list_indexes and declared
// here by name and statement; its turns are CallTurn.

@Entity({ tableName: 'calls' })
@Index({ name: 'calls_company_id_started_at_index', properties: ['company', 'startedAt'] })
@Index({ name: 'calls_agent_id_index', properties: ['agent'] })
@Index({
  name: 'calls_company_id_started_at_appointments_index',
  expression:
    'create index "calls_company_id_started_at_appointments_index" on "calls" ("company_id", "started_at" desc, "id" desc) where "appointment_at" is not null',
})
@Index({
  name: 'calls_company_id_agent_id_started_at_appointments_index',
  expression:
    'create index "calls_company_id_agent_id_started_at_appointments_index" on "calls" ' +
    '("company_id", "agent_id", "started_at" desc, "id" desc) where "appointment_at" is not null',
})
export class Call extends CompanyOwned {
  @ManyToOne(() => Agent, { nullable: true, deleteRule: 'set null', updateRule: 'cascade', index: false })
  agent?: Rel<Agent> | null;

  @Property({ type: 'string', length: 64, nullable: true, unique: 'calls_provider_call_id_unique' })
  providerCallId?: string | null;

  @Property({ type: 'string', length: 20 })
  fromNumber!: string;

  /** Who answered, by the provider's machine detection: human, machine_start, machine_end_beep, fax, unknown... */
  @Property({ type: 'string', length: 32, nullable: true })
  answeredBy?: string | null = null;

  @Property({ type: 'string', length: 20 })
  toNumber!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  startedAt!: Date;

  @Property({ type: 'integer', default: 0 })
  durationSeconds: Opt<number> = 0;

  /** The provider's call status (kernel/vocabulary.ts CALL_STATUSES). */
  @Property({ type: 'string', length: 32 })
  status!: string;

  /** inbound or outbound (kernel/vocabulary.ts DIRECTIONS). */
  @Property({ type: 'string', length: 16 })
  direction!: string;

  /** positive, neutral or negative (kernel/vocabulary.ts SENTIMENTS). */
  @Property({ type: 'string', length: 16, nullable: true })
  sentiment?: string | null;

  @Property({ type: 'string', length: 2048, nullable: true })
  recordingUrl?: string | null;

  @Property({ type: 'text', nullable: true })
  transcript?: string | null;

  @Property({ type: 'string', length: 64, nullable: true })
  disposition?: string | null;

  @Property({ type: 'json', default: '[]' })
  tags: Opt<string[]> = [];

  @Property({ type: 'json', default: '{}' })
  customFields: Opt<Record<string, unknown>> = {};

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  appointmentAt?: Date | null;

  @Property({ type: 'string', length: 255, nullable: true })
  contactName?: string | null;

  @Property({ type: 'string', length: 255, nullable: true })
  contactEmail?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  answeredAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  endedAt?: Date | null;

  @Property({ type: 'string', length: 32, nullable: true })
  transferredTo?: string | null;

  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null', updateRule: 'cascade', index: false })
  contact?: Rel<Contact> | null;

  @Property({ type: 'text', nullable: true })
  summary?: string | null;

  @Property({ type: 'boolean', nullable: true })
  successful?: boolean | null;

  @Property({ type: 'json', default: '{}' })
  customAnalysis: Opt<Record<string, unknown>> = {};

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  analyzedAt?: Date | null;

  /** endpoint, fallback or number: who made the decision below (null before one is made). */
  @Property({ type: 'string', length: 16, nullable: true })
  decidedBy?: string | null;

  @Embedded(() => CallDecisionRecord, { prefix: 'decision_' })
  decision: Opt<CallDecisionRecord> = new CallDecisionRecord();
}
