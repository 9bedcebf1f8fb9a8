import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Formula, Index, ManyToOne, type Opt, Property, type Rel } from '@mikro-orm/core';
import { Agent } from './agent.entity.js';
import { DecisionEndpoint } from './decision-endpoint.entity.js';

/** A dialer campaign of a company, and the agent that dials it. */
@Entity({ tableName: 'campaigns' })
@Index({ name: 'campaigns_company_id_created_at_index', properties: ['company', 'createdAt'] })
@Index({ name: 'campaigns_status_starts_at_index', properties: ['status', 'startsAt'] })
export class Campaign extends CompanyOwned {
  @Property({ type: 'string', length: 255 })
  name!: string;

  /** draft, scheduled, running, paused, completed or canceled (kernel/vocabulary.ts CAMPAIGN_STATUSES). */
  @Property({ type: 'string', length: 16, default: 'draft' })
  status: Opt<string> = 'draft';

  @ManyToOne(() => Agent, { nullable: true, deleteRule: 'set null', updateRule: 'cascade', index: false })
  agent: Rel<Agent> | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  startedAt: Date | null = null;

  /** When a scheduled campaign starts (the dialer starts it then). */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  startsAt: Date | null = null;

  /** Calls of this campaign at once, at most (under its company's cap). */
  @Property({ type: 'smallint', default: 10 })
  concurrency: Opt<number> = 10;

  /** The company's number it calls from; none: the company's first number for the dialer. */
  @Property({ type: 'string', length: 20, nullable: true })
  fromNumber: string | null = null;

  /** Its calling hours in each lead's own time: minutes after midnight, from (inclusive) and to (exclusive). */
  @Property({ type: 'smallint', default: 480 })
  hoursStart: Opt<number> = 480;

  @Property({ type: 'smallint', default: 1260 })
  hoursEnd: Opt<number> = 1260;

  /** The days it calls on (ISO: 1 is Monday, 7 Sunday), in each lead's own time. */
  @Property({ type: 'json', default: '[1,2,3,4,5,6,7]' })
  callingDays: Opt<number[]> = [1, 2, 3, 4, 5, 6, 7];

  /** Seconds a call rings before it is no answer (15 at least). */
  @Property({ type: 'smallint', default: 25 })
  ringSeconds: Opt<number> = 25;

  /** Attempts a lead gets at most, whatever their outcomes. */
  @Property({ type: 'smallint', default: 3 })
  maxAttempts: Opt<number> = 3;

  /** Minutes before each retry: the first after attempt 1, and so on (the last repeats). */
  @Property({ type: 'json', default: '[30,60,120]' })
  retryMinutes: Opt<number[]> = [30, 60, 120];

  /** The outcomes retried (kernel/vocabulary.ts DIAL_OUTCOMES). */
  @Property({ type: 'json', default: '["no_answer","busy"]' })
  retryOn: Opt<string[]> = ['no_answer', 'busy'];

  /** The decision endpoint asked before each dial (dial, skip, or dial with variables); none: every lead is dialed. */
  @ManyToOne(() => DecisionEndpoint, { nullable: true, deleteRule: 'set null', updateRule: 'cascade', index: false })
  predialEndpoint: Rel<DecisionEndpoint> | null = null;

  /** What the dialer does when the pre-dial endpoint gives no answer in time: `dial` or `skip`. */
  @Property({ type: 'string', length: 8, default: 'dial' })
  predialFallback: Opt<string> = 'dial';

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  completedAt: Date | null = null;

  /** How many leads it has: read only when asked for (`populate: ['leads']`), in the same statement. */
  @Formula((alias) => `(select count(*)::int from leads l where l.campaign_id = ${alias}.id)`, {
    type: 'integer',
    lazy: true,
  })
  leads?: number;
}
