import type { RequestContext } from '../context/request-context.js';
import { ATTEMPT_OUTCOMES, type AttemptOutcome, LATENCY_SLOTS, type StatsBucket } from '../kernel/attempt-outcome.js';

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
    const rows = await ctx.sql<{ at: Date; slot: number | null; n: number | null } & Record<string, number | null>>(
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
       SELECT s.at, NULL::int AS slot, NULL::int AS n,
         ${ATTEMPT_OUTCOMES.map((o) => `coalesce(sum(r.${o}), 0)::int AS ${o}`).join(', ')}, coalesce(sum(r.failed), 0)::int AS failed
       FROM starts s LEFT JOIN rows r ON r.at = s.at GROUP BY s.at
       UNION ALL
       SELECT r.at, (t.i - 1)::int, sum(t.n)::int, ${ATTEMPT_OUTCOMES.map(() => 'NULL').join(', ')}, NULL
       FROM rows r CROSS JOIN LATERAL unnest(r.latency) WITH ORDINALITY AS t(n, i) GROUP BY r.at, t.i
       ORDER BY 1, 2 NULLS FIRST`,
      [id, window.from, window.to, SPAN[bucket], ...(bucket === 'day' ? [window.timeZone] : [])],
    );
    const points: StatsPoint[] = [];
    const byStart = new Map<number, StatsPoint>();
    for (const row of rows) {
      const key = row.at.getTime();
      if (row.slot === null) {
        const counts = Object.fromEntries(ATTEMPT_OUTCOMES.map((o) => [o, row[o] ?? 0])) as Record<
          AttemptOutcome,
          number
        >;
        const point = {
          at: row.at,
          counts,
          failed: row.failed ?? 0,
          latency: new Array<number>(LATENCY_SLOTS).fill(0),
        };
        points.push(point);
        byStart.set(key, point);
      } else {
        const point = byStart.get(key);
        if (point) point.latency[row.slot] = row.n ?? 0;
      }
    }
    return points;
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
