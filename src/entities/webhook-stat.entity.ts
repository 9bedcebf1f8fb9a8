import { Entity, Index, type Opt, PrimaryKey, Property } from '@mikro-orm/core';

// A webhook's attempts in one span of time, counted by outcome as the delivery engine settles them (the settle
// statements upsert it: webhooks/engine/settle.ts), with a histogram of answer times (kernel/attempt-outcome.ts).
// Two spans: a minute (kept a day and an hour) and a quarter of an hour (kept 91 days), from which hours and days are
// summed in the company's zone, whatever its offset. Like the delivery tables, no foreign key: a deleted webhook's
// rows stay in the company's totals until they age out. fillfactor 50 (updated in place many times a minute) is set in
// Migration20261129080000_stats_fillfactor: MikroORM has no table options.

@Entity({ tableName: 'webhook_stats' })
@Index({ name: 'webhook_stats_company_id_span_bucket_index', properties: ['companyId', 'span', 'bucket'] })
export class WebhookStat {
  @PrimaryKey({ type: 'integer', autoincrement: false })
  webhookId!: number;

  /** The span's length in seconds: 60 or 900. */
  @PrimaryKey({ type: 'smallint', autoincrement: false })
  span!: number;

  /** The span's start (UTC, a whole minute or quarter hour). */
  @PrimaryKey({ type: 'datetime', columnType: 'timestamptz' })
  bucket!: Date;

  @Property({ type: 'integer' })
  companyId!: number;

  @Property({ type: 'integer', default: 0 })
  success: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  clientError: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  serverError: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  timeout: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  network: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  brokerRefused: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  interrupted: Opt<number> = 0;

  /** Deliveries whose last attempt failed in the span. */
  @Property({ type: 'integer', default: 0 })
  failed: Opt<number> = 0;

  // Answers per slot of the answer-time histogram (kernel/attempt-outcome.ts LATENCY_BOUNDS_MS): under each bound,
  // then 30 s or more; a column each, so a window's slots are summed by the database.
  @Property({ type: 'integer', default: 0, fieldName: 'lt_5' })
  lt5: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'lt_10' })
  lt10: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'lt_25' })
  lt25: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'lt_50' })
  lt50: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'lt_100' })
  lt100: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'lt_250' })
  lt250: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'lt_500' })
  lt500: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'lt_1000' })
  lt1000: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'lt_2500' })
  lt2500: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'lt_5000' })
  lt5000: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'lt_10000' })
  lt10000: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'lt_30000' })
  lt30000: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'ge_30000' })
  ge30000: Opt<number> = 0;
}
