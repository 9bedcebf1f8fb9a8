import { Entity, Index, type Opt, PrimaryKey, Property } from '@mikro-orm/core';

// A call path endpoint's questions in one span of time (a decision endpoint's or an agent tool's: `kind`), counted by
// outcome (kernel/call-path-outcome.ts), with two histograms: the time Switchboard added and the endpoint's own. The
// caller counts them in memory as it answers and adds them here every few seconds, off the call path
// (decisions/call-path-record.ts). Spans as webhook_stats has them: a minute (kept a day and an hour) and a quarter
// of an hour (kept 91 days). No foreign key: a deleted endpoint's rows age out with the rest. fillfactor 50 is set in
// Migration20261129080000_stats_fillfactor: MikroORM has no table options.

@Entity({ tableName: 'call_path_stats' })
@Index({
  name: 'call_path_stats_company_id_kind_span_bucket_index',
  properties: ['companyId', 'kind', 'span', 'bucket'],
})
export class CallPathStat {
  /** decision or tool. */
  @PrimaryKey({ type: 'string', length: 16 })
  kind!: string;

  @PrimaryKey({ type: 'integer', autoincrement: false })
  endpointId!: number;

  /** The span's length in seconds: 60 or 900. */
  @PrimaryKey({ type: 'smallint', autoincrement: false })
  span!: number;

  /** The span's start (UTC, a whole minute or quarter hour). */
  @PrimaryKey({ type: 'datetime', columnType: 'timestamptz' })
  bucket!: Date;

  @Property({ type: 'integer' })
  companyId!: number;

  @Property({ type: 'integer', default: 0 })
  answered: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  timeout: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  error: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  invalid: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  unreachable: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  breakerOpen: Opt<number> = 0;

  /** Questions asked twice (the hedge). */
  @Property({ type: 'integer', default: 0 })
  hedged: Opt<number> = 0;

  /** Times the breaker opened (or opened again after a failed probe). */
  @Property({ type: 'integer', default: 0 })
  breakerOpenings: Opt<number> = 0;

  // The time Switchboard added, per slot of kernel/call-path-outcome.ts CALL_PATH_BOUNDS_MS: under each bound, then
  // 10 s or more.
  @Property({ type: 'integer', default: 0, fieldName: 'added_lt_1' })
  addedLt1: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'added_lt_2' })
  addedLt2: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'added_lt_5' })
  addedLt5: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'added_lt_10' })
  addedLt10: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'added_lt_25' })
  addedLt25: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'added_lt_50' })
  addedLt50: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'added_lt_100' })
  addedLt100: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'added_lt_250' })
  addedLt250: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'added_lt_500' })
  addedLt500: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'added_lt_1000' })
  addedLt1000: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'added_lt_2500' })
  addedLt2500: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'added_lt_5000' })
  addedLt5000: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'added_lt_10000' })
  addedLt10000: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'added_ge_10000' })
  addedGe10000: Opt<number> = 0;

  // The endpoint's own time, per slot as above: questions that sent no request (an open breaker, an unreachable
  // address) have none.
  @Property({ type: 'integer', default: 0, fieldName: 'endpoint_lt_1' })
  endpointLt1: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'endpoint_lt_2' })
  endpointLt2: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'endpoint_lt_5' })
  endpointLt5: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'endpoint_lt_10' })
  endpointLt10: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'endpoint_lt_25' })
  endpointLt25: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'endpoint_lt_50' })
  endpointLt50: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'endpoint_lt_100' })
  endpointLt100: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'endpoint_lt_250' })
  endpointLt250: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'endpoint_lt_500' })
  endpointLt500: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'endpoint_lt_1000' })
  endpointLt1000: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'endpoint_lt_2500' })
  endpointLt2500: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'endpoint_lt_5000' })
  endpointLt5000: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'endpoint_lt_10000' })
  endpointLt10000: Opt<number> = 0;

  @Property({ type: 'integer', default: 0, fieldName: 'endpoint_ge_10000' })
  endpointGe10000: Opt<number> = 0;
}
