import type { RequestContext } from '../context/request-context.js';
import type { StatsWindow } from '../kernel/time/stats-window.js';
import { ATTEMPT_OUTCOMES, type AttemptOutcome, LATENCY_COLUMNS } from '../kernel/attempt-outcome.js';
import { statsSeries, statsTotals, type StatsWhere } from './stats-series.js';

// The record over time of a company's webhooks (webhook_stats, kept by the delivery engine as it settles attempts:
// webhooks/engine/stats.ts), read back in buckets of a minute, an hour or a day of the company's zone
// (repositories/stats-series.ts).

/** Whose attempts: one webhook's, or all the company's. */
export type StatsScope = { webhookId: number } | { companyId: number };

/** One bucket: when it starts, its attempts by outcome, the deliveries that failed in it, its answer-time histogram. */
export interface StatsPoint {
  at: Date;
  counts: Record<AttemptOutcome, number>;
  failed: number;
  latency: number[];
}

const COLUMNS = [...ATTEMPT_OUTCOMES, 'failed', ...LATENCY_COLUMNS];

/** A row of sums as a point's figures. */
const pointOf = (row: Record<string, number>): Omit<StatsPoint, 'at'> => ({
  counts: Object.fromEntries(ATTEMPT_OUTCOMES.map((o) => [o, row[o]])) as Record<AttemptOutcome, number>,
  failed: row.failed,
  latency: LATENCY_COLUMNS.map((c) => row[c]),
});

const whereOf = (scope: StatsScope): StatsWhere =>
  'webhookId' in scope ? [['webhook_id', scope.webhookId]] : [['company_id', scope.companyId]];

export const webhookStatsRepository = {
  /** The buckets of [from, to) in `timeZone` (both bounds already on a bucket's start there), oldest first. */
  async series(ctx: RequestContext, scope: StatsScope, window: StatsWindow): Promise<StatsPoint[]> {
    const rows = await statsSeries(ctx, 'webhook_stats', whereOf(scope), COLUMNS, window, 'webhookId' in scope);
    return rows.map((row) => ({ at: row.at, ...pointOf(row) }));
  },

  /** The sums of [from, to): what `series` gives, added up, without a row per bucket. */
  async totals(ctx: RequestContext, scope: StatsScope, window: StatsWindow): Promise<Omit<StatsPoint, 'at'>> {
    return pointOf(await statsTotals(ctx, 'webhook_stats', whereOf(scope), COLUMNS, window));
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
