import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Index, ManyToOne, Property, type Rel, Unique } from '@mikro-orm/core';
import { Campaign } from './campaign.entity.js';
import { Lead } from './lead.entity.js';

/**
 * One call placed to a campaign's lead: its attempt number is the lead's own, once (the dial is made once per
 * attempt); `dialing` until the provider gives the call's id, `live` until the call ends, then `ended` with its
 * outcome. A `dialing` attempt past its lease is one whose dialer stopped: it is looked for at the provider
 * (docs/dialer.md).
 */
@Entity({ tableName: 'lead_attempts' })
@Unique({ name: 'lead_attempts_lead_id_attempt_unique', properties: ['lead', 'attempt'] })
@Index({ name: 'lead_attempts_campaign_id_state_index', properties: ['campaign', 'state'] })
@Index({ name: 'lead_attempts_state_lease_until_index', properties: ['state', 'leaseUntil'] })
export class LeadAttempt extends CompanyOwned {
  @ManyToOne(() => Lead, { deleteRule: 'cascade', updateRule: 'cascade', index: false })
  lead!: Rel<Lead>;

  @ManyToOne(() => Campaign, { deleteRule: 'cascade', updateRule: 'cascade', index: false })
  campaign!: Rel<Campaign>;

  @Property({ type: 'smallint' })
  attempt!: number;

  /** dialing, live or ended. */
  @Property({ type: 'string', length: 16 })
  state!: string;

  @Property({ type: 'string', length: 64, nullable: true, unique: 'lead_attempts_call_sid_unique' })
  callSid: string | null = null;

  @Property({ type: 'string', length: 16, nullable: true })
  outcome: string | null = null;

  /** The provider's refusal, when it refused the dial. */
  @Property({ type: 'string', length: 255, nullable: true })
  error: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  dialedAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  endedAt: Date | null = null;

  /** The pre-dial decision, when its campaign asks one (services/dialer.service.ts decisionRecord). */
  @Property({ type: 'json', nullable: true })
  decision: Record<string, unknown> | null = null;

  /** Until when its dialer holds it while `dialing`. */
  @Property({ type: 'datetime', columnType: 'timestamptz' })
  leaseUntil!: Date;
}
