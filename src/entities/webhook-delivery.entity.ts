import { Entity, Index, type Opt, PrimaryKey, Property } from '@mikro-orm/core';

// A delivery of one event to one webhook, and the engine's state of it. The claim, lease and ordering indexes are
// partial, written in Migration20261124070000_delivery_engine, Migration20261127210000_delivery_costs and
// Migration20261128030000_subject_ordering, and declared here by name and statement. No foreign keys (the engine's
// writes stay cheap; the webhook_deleting trigger removes a webhook's deliveries, and the
// webhook_deliveries_deleted trigger their attempts). `lease_token` is drawn from the sequence webhook_lease_seq.
// The table is partitioned by the range of its id (Migration20261202050000_delivery_log_partitions): one delivery
// per (event, webhook) is kept by the replay's lock, no longer by a unique index.

@Entity({ tableName: 'webhook_deliveries' })
@Index({ name: 'webhook_deliveries_webhook_id_created_at_index', properties: ['webhookId', 'createdAt'] })
@Index({
  name: 'webhook_deliveries_webhook_due_index',
  expression:
    'create index "webhook_deliveries_webhook_due_index" on "webhook_deliveries" ' +
    '("webhook_id", "next_attempt_at", "id") where "status" = \'pending\' and "next_attempt_at" is not null',
})
@Index({
  name: 'webhook_deliveries_lease_expiry_index',
  expression:
    'create index "webhook_deliveries_lease_expiry_index" on "webhook_deliveries" ("in_flight_until") where "lease_token" is not null',
})
@Index({
  name: 'webhook_deliveries_event_index',
  expression:
    'create index "webhook_deliveries_event_index" on "webhook_deliveries" ("event_id", "webhook_id") where "event_id" is not null',
})
@Index({
  name: 'webhook_deliveries_order_pending_index',
  expression:
    'create index "webhook_deliveries_order_pending_index" on "webhook_deliveries" ' +
    '("webhook_id", "order_key", "created_at", "id") where "status" = \'pending\' and "order_key" is not null',
})
export class WebhookDelivery {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'integer' })
  webhookId!: number;

  @Property({ type: 'integer' })
  companyId!: number;

  @Property({ type: 'string', length: 64 })
  event!: string;

  /** kernel/vocabulary.ts DELIVERY_STATUSES. */
  @Property({ type: 'string', length: 16, default: 'pending' })
  status: Opt<string> = 'pending';

  /** The signed body, as sent. */
  @Property({ type: 'text' })
  payload!: string;

  @Property({ type: 'integer', default: 0 })
  attemptCount: Opt<number> = 0;

  @Property({ type: 'integer', default: 5 })
  finalAttempt: Opt<number> = 5;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  nextAttemptAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lastAttemptAt?: Date | null;

  @Property({ type: 'integer', nullable: true })
  lastStatusCode?: number | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  inFlightUntil?: Date | null;

  /** kernel/vocabulary.ts ATTEMPT_TRIGGERS. */
  @Property({ type: 'string', length: 16, default: 'scheduled' })
  nextTrigger: Opt<string> = 'scheduled';

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'bigint', nullable: true })
  leaseToken?: string | null;

  @Property({ type: 'string', length: 40, nullable: true })
  eventId?: string | null;

  @Property({ type: 'string', length: 55, nullable: true })
  traceParent?: string | null;

  @Property({ type: 'text', nullable: true })
  orderKey?: string | null;
}
