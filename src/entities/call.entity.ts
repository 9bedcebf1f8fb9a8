import { Entity, Index, ManyToOne, Property, type Opt, type Rel } from '@mikro-orm/core';
import { Agent } from './agent.entity.js';
import { CompanyOwned } from './company-owned.js';

/** One call, as the provider reported it; the AI dashboard reads these. */
@Entity({ tableName: 'calls' })
@Index({ properties: ['company', 'startedAt'] })
@Index({
  name: 'calls_company_id_started_at_appointments_index',
  expression:
    'create index "calls_company_id_started_at_appointments_index" on "calls" ("company_id", "started_at" desc, "id" desc) where "appointment_at" is not null',
})
@Index({
  name: 'calls_company_id_agent_id_started_at_appointments_index',
  expression:
    'create index "calls_company_id_agent_id_started_at_appointments_index" on "calls" ("company_id", ' +
    '"agent_id", "started_at" desc, "id" desc) where "appointment_at" is not null',
})
export class Call extends CompanyOwned {
  @ManyToOne(() => Agent, { nullable: true, deleteRule: 'set null' })
  @Index()
  agent?: Rel<Agent> | null;

  /** The provider's id for the call. */
  @Property({ length: 64, nullable: true, unique: true })
  providerCallId?: string | null;

  @Property({ length: 20 })
  fromNumber!: string;

  @Property({ length: 20 })
  toNumber!: string;

  @Property({ type: 'datetime' })
  startedAt!: Date;

  @Property({ default: 0 })
  durationSeconds: Opt<number> = 0;

  /** completed, no-answer, busy, failed, in-progress */
  @Property({ length: 32 })
  status!: string;

  /** inbound or outbound */
  @Property({ length: 16 })
  direction!: string;

  /** positive, neutral, negative; null until analysed */
  @Property({ length: 16, nullable: true })
  sentiment?: string | null;

  @Property({ length: 2048, nullable: true })
  recordingUrl?: string | null;

  @Property({ type: 'text', nullable: true })
  transcript?: string | null;

  @Property({ length: 64, nullable: true })
  disposition?: string | null;

  @Property({ type: 'json', default: '[]' })
  tags: Opt<string[]> = [];

  @Property({ type: 'json', default: '{}' })
  customFields: Opt<Record<string, unknown>> = {};

  /** The other party, found or created by phone number (contacts are SQL's alone: services/contact.service.ts). */
  @Property({ fieldName: 'contact_id', nullable: true })
  contactId?: number | null;

  /** When the provider reported the call answered (in-progress). */
  @Property({ type: 'datetime', nullable: true })
  answeredAt?: Date | null;

  /** When the provider reported the call over. */
  @Property({ type: 'datetime', nullable: true })
  endedAt?: Date | null;

  /** The number or agent the call was last transferred to. */
  @Property({ length: 32, nullable: true })
  transferredTo?: string | null;

  /** When the call booked an appointment, its time. */
  @Property({ type: 'datetime', nullable: true })
  appointmentAt?: Date | null;

  /** The post-call analysis (call.analyzed): a summary, whether the call reached its goal, the company's own fields. */
  @Property({ type: 'text', nullable: true })
  summary?: string | null;

  @Property({ nullable: true })
  successful?: boolean | null;

  @Property({ type: 'json', default: '{}' })
  customAnalysis: Opt<Record<string, unknown>> = {};

  @Property({ type: 'datetime', nullable: true })
  analyzedAt?: Date | null;

  @Property({ length: 255, nullable: true })
  contactName?: string | null;

  @Property({ length: 255, nullable: true })
  contactEmail?: string | null;
}
