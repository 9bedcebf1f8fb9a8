import { Entity, Index, ManyToOne, PrimaryKey, Property, type Opt, type Rel } from '@mikro-orm/core';
import { Webhook } from './webhook.entity.js';

import type { DeliveryStatus } from '../kernel/vocabulary.js';

export type { DeliveryStatus };

/**
 * One event for one webhook: the outbox row, written in the transaction of
 * the change that caused the event. The truth about a delivery; Agenda jobs
 * only wake it up.
 */
@Entity({ tableName: 'webhook_deliveries' })
@Index({ properties: ['webhook', 'createdAt'] })
@Index({
  name: 'webhook_deliveries_due_index',
  expression: `create index "webhook_deliveries_due_index" on "webhook_deliveries" ("next_attempt_at") where "status" = 'pending'`,
})
@Index({ properties: ['createdAt'] })
@Index({
  name: 'webhook_deliveries_subjects_index',
  expression: 'create index "webhook_deliveries_subjects_index" on "webhook_deliveries" using gin ("subjects")',
})
@Index({
  name: 'webhook_deliveries_event_index',
  expression:
    'create unique index "webhook_deliveries_event_index" on "webhook_deliveries" ("webhook_id", "event_id") where "event_id" is not null',
})
export class WebhookDelivery {
  /** msg_ + a ULID: sortable and unique; the webhook-id of every attempt. */
  @PrimaryKey({ length: 40 })
  id!: string;

  @ManyToOne(() => Webhook, { deleteRule: 'cascade' })
  webhook!: Rel<Webhook>;

  @Property()
  companyId!: number;

  @Property({ length: 64 })
  event!: string;

  /** What the event concerns: call:<id>, campaign:<id>, agent:<id>, contact:<id> (webhooks/subjects.ts). */
  @Property({ type: 'text[]', default: '{}' })
  subjects: Opt<string[]> = [];

  /** The stored event it delivers (events.id); null for a test send. */
  @Property({ length: 40, nullable: true })
  eventId?: string | null;

  /** The W3C traceparent of the request that caused it, when tracing was on (observability/tracing.ts). */
  @Property({ length: 55, nullable: true })
  traceParent?: string | null;

  @Property({ length: 16, default: 'pending' })
  status: Opt<DeliveryStatus> = 'pending';

  /** The payload JSON text without its signature; every attempt sends these bytes (signed). */
  @Property({ type: 'text' })
  payload!: string;

  @Property({ default: 0 })
  attemptCount: Opt<number> = 0;

  /** The attempt number that ends the current schedule: 5 for a new delivery, attempt count + 5 after a resend. */
  @Property({ default: 5 })
  finalAttempt: Opt<number> = 5;

  @Property({ type: 'datetime', nullable: true })
  nextAttemptAt?: Date | null;

  @Property({ type: 'datetime', nullable: true })
  lastAttemptAt?: Date | null;

  @Property({ type: 'integer', nullable: true })
  lastStatusCode?: number | null;

  /** While an attempt is in flight: when it is presumed lost (its worker died). */
  @Property({ type: 'datetime', nullable: true })
  inFlightUntil?: Date | null;

  /** The fencing token of the claim in flight: only the worker holding it may record the attempt's result. */
  @Property({ type: 'bigint', nullable: true })
  leaseToken?: string | null;

  /** The trigger of the next attempt: scheduled, or manual after a resend. */
  @Property({ length: 16, default: 'scheduled' })
  nextTrigger: Opt<string> = 'scheduled';

  @Property({ type: 'datetime' })
  createdAt: Opt<Date> = new Date();
}
