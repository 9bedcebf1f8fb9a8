import type { RequestContext } from '../context/request-context.js';
import { ATTEMPT_OUTCOMES, type AttemptOutcome, LATENCY_COLUMNS, type StatsBucket } from '../kernel/attempt-outcome.js';

// The record over time of a company's webhooks (webhook_stats, kept by the delivery engine as it settles
// attempts: webhooks/engine/stats.ts), read back in buckets of a minute, an hour or a day of the company's zone. One
// statement: the bucket starts of the window, each with the counts and the answer-time histogram of the rows that
// fall in it. Minutes and hours are real ones from the window's start (a local hour's start in the zone), so the day
// the clocks go back has 25 hours, the repeated one twice; days are the zone's calendar days, of 23 to 25 hours.

/** Whose attempts: one webhook's, or all the company's. */
export type StatsScope = { webhookId: number } | { companyId: number };

/** One bucket: when it starts, its attempts by outcome, the deliveries that failed in it, its answer-time histogram. */
export interface StatsPoint {
  at: Date;
  counts: Record<AttemptOutcome, number>;
  failed: number;
  latency: number[];
}

/** The sums of the rows `r`: each outcome, the failed deliveries, each slot of the histogram. */
const SUMS = [...ATTEMPT_OUTCOMES, 'failed', ...LATENCY_COLUMNS]
  .map((c) => `coalesce(sum(r.${c}), 0)::int AS ${c}`)
  .join(', ');

/** A row of sums as a point's figures. */
const pointOf = (row: Record<string, number>): Omit<StatsPoint, 'at'> => ({
  counts: Object.fromEntries(ATTEMPT_OUTCOMES.map((o) => [o, row[o]])) as Record<AttemptOutcome, number>,
  failed: row.failed,
  latency: LATENCY_COLUMNS.map((c) => row[c]),
});

/** Rows of the minute span for minute buckets; of the quarter-hour span (whole in every zone's hours) otherwise. */
const SPAN: Record<StatsBucket, number> = { minute: 60, hour: 900, day: 900 };

export const webhookStatsRepository = {
  /** The buckets of [from, to) in `timeZone` (both bounds already on a bucket's start there), oldest first. */
  async series(
    ctx: RequestContext,
    scope: StatsScope,
    bucket: StatsBucket,
    window: { from: Date; to: Date; timeZone: string },
  ): Promise<StatsPoint[]> {
    const [column, id] = 'webhookId' in scope ? ['webhook_id', scope.webhookId] : ['company_id', scope.companyId];
    const rows = await ctx.sql<{ at: Date } & Record<string, number>>(
      `WITH starts AS (${
        bucket === 'day'
          ? `SELECT DISTINCT generate_series($2::timestamptz AT TIME ZONE $5, $3::timestamptz AT TIME ZONE $5 - interval '1 day',
               interval '1 day') AT TIME ZONE $5 AS at`
          : `SELECT generate_series($2::timestamptz, $3::timestamptz - interval '1 ${bucket}', interval '1 ${bucket}') AS at`
      }), rows AS (
         SELECT ${
           bucket === 'day'
             ? "date_trunc('day', w.bucket AT TIME ZONE $5) AT TIME ZONE $5"
             : `date_bin(interval '1 ${bucket}', w.bucket, $2::timestamptz)`
         } AS at, w.*
         FROM webhook_stats w WHERE w.${column} = $1 AND w.span = $4 AND w.bucket >= $2 AND w.bucket < $3
       )
       SELECT s.at, ${SUMS} FROM starts s LEFT JOIN rows r ON r.at = s.at GROUP BY s.at ORDER BY s.at`,
      [id, window.from, window.to, SPAN[bucket], ...(bucket === 'day' ? [window.timeZone] : [])],
    );
    return rows.map((row) => ({ at: row.at, ...pointOf(row) }));
  },

  /** The sums of [from, to): what `series` gives, added up, without a row per bucket. */
  async totals(
    ctx: RequestContext,
    scope: StatsScope,
    bucket: StatsBucket,
    window: { from: Date; to: Date },
  ): Promise<Omit<StatsPoint, 'at'>> {
    const [column, id] = 'webhookId' in scope ? ['webhook_id', scope.webhookId] : ['company_id', scope.companyId];
    const [row] = await ctx.sql<Record<string, number>>(
      `SELECT ${SUMS} FROM webhook_stats r WHERE r.${column} = $1 AND r.span = $4 AND r.bucket >= $2 AND r.bucket < $3`,
      [id, window.from, window.to, SPAN[bucket]],
    );
    return pointOf(row);
  },

  /** The webhook's deliveries waiting for an attempt now. */
  async waiting(ctx: RequestContext, webhookId: number): Promise<number> {
    const [row] = await ctx.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending'",
      [webhookId],
    );
    return row.n;
  },
};
