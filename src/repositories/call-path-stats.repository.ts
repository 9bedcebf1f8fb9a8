import { LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import type { StatsWindow } from '../kernel/time/stats-window.js';
import { CallPathStat } from '../entities/call-path-stat.entity.js';
import {
  ADDED_COLUMNS,
  ANSWER_OUTCOMES,
  type AnswerOutcome,
  type CallPathCounts,
  type CallPathKind,
  ENDPOINT_COLUMNS,
} from '../kernel/call-path-outcome.js';
import { statsSeries, statsTotals, type StatsWhere } from './stats-series.js';

// The record over time of the call path's endpoints (call_path_stats: entities/call-path-stat.entity.ts): the
// caller's counts added to it every few seconds, and read back in buckets of the company's zone.

/** An endpoint's counts of one minute, as the caller hands them over. */
export interface CallPathMinute extends CallPathCounts {
  kind: CallPathKind;
  endpointId: number;
  companyId: number;
  /** The minute's start (UTC). */
  minute: Date;
}

/** Whose questions: one endpoint's, or all the company's of one kind. */
export type CallPathScope = { kind: CallPathKind } & ({ endpointId: number } | { companyId: number });

/** The spans each minute's counts go into: the minute, and the quarter hour holding it. */
const SPANS = [60, 900];
const COLUMNS = [...ANSWER_OUTCOMES, 'hedged', 'breaker_openings', ...ADDED_COLUMNS, ...ENDPOINT_COLUMNS];
/** A column's property on the entity: `breaker_open` is `breakerOpen`, `added_lt_1` is `addedLt1`. */
const propertyOf = (column: string) =>
  column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) as keyof CallPathStat;

const countsOf = (row: Record<string, number>): CallPathCounts => ({
  outcomes: Object.fromEntries(ANSWER_OUTCOMES.map((o) => [o, row[o]])) as Record<AnswerOutcome, number>,
  hedged: row.hedged,
  breakerOpenings: row.breaker_openings,
  added: ADDED_COLUMNS.map((c) => row[c]),
  endpoint: ENDPOINT_COLUMNS.map((c) => row[c]),
});

/** The counts as the columns' values, in COLUMNS' order. */
const valuesOf = (counts: CallPathCounts): number[] => [
  ...ANSWER_OUTCOMES.map((o) => counts.outcomes[o]),
  counts.hedged,
  counts.breakerOpenings,
  ...counts.added,
  ...counts.endpoint,
];

const whereOf = (scope: CallPathScope): StatsWhere => [
  ['kind', scope.kind],
  'endpointId' in scope ? ['endpoint_id', scope.endpointId] : ['company_id', scope.companyId],
];

const keyOf = (row: { kind: string; endpointId: number; span: number; bucket: Date }) =>
  `${row.kind}:${row.endpointId}:${row.span}:${row.bucket.getTime()}`;

export const callPathStatsRepository = {
  /**
   * Adds minutes' counts to their minute's and quarter hour's rows, in the unit of work: the rows made where
   * missing, then locked (in key order, so two processes adding never wait on each other crosswise) and added to.
   */
  async add(ctx: RequestContext, minutes: CallPathMinute[]): Promise<void> {
    const sums = new Map<string, { row: Omit<CallPathStat, keyof CallPathCounts>; values: number[] }>();
    for (const m of minutes) {
      for (const span of SPANS) {
        const bucket = new Date(Math.floor(m.minute.getTime() / (span * 1000)) * span * 1000);
        const row = { kind: m.kind, endpointId: m.endpointId, span, bucket, companyId: m.companyId };
        const key = keyOf(row);
        const values = valuesOf(m);
        const had = sums.get(key);
        if (had) had.values = had.values.map((n, i) => n + values[i]);
        else sums.set(key, { row: row as Omit<CallPathStat, keyof CallPathCounts>, values });
      }
    }
    if (sums.size === 0) return;
    const keys = [...sums.values()].map((s) => s.row).sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
    await ctx.em
      .createQueryBuilder(CallPathStat)
      .insert(
        keys.map(({ kind, endpointId, span, bucket, companyId }) => ({ kind, endpointId, span, bucket, companyId })),
      )
      .onConflict(['kind', 'endpointId', 'span', 'bucket'])
      .ignore()
      .execute('run');
    const rows = await ctx.em.find(
      CallPathStat,
      { $or: keys.map(({ kind, endpointId, span, bucket }) => ({ kind, endpointId, span, bucket })) },
      {
        lockMode: LockMode.PESSIMISTIC_WRITE,
        orderBy: { kind: 'asc', endpointId: 'asc', span: 'asc', bucket: 'asc' },
      },
    );
    for (const row of rows) {
      const values = sums.get(keyOf(row))!.values;
      COLUMNS.forEach((column, i) => {
        (row as unknown as Record<string, number>)[propertyOf(column)] += values[i];
      });
    }
  },

  /** The buckets of [from, to) in `timeZone` (both bounds already on a bucket's start there), oldest first. */
  async series(
    ctx: RequestContext,
    scope: CallPathScope,
    window: StatsWindow,
  ): Promise<Array<CallPathCounts & { at: Date }>> {
    const rows = await statsSeries(ctx, 'call_path_stats', whereOf(scope), COLUMNS, window, 'endpointId' in scope);
    return rows.map((row) => ({ at: row.at, ...countsOf(row) }));
  },

  /** The sums of [from, to). */
  async totals(ctx: RequestContext, scope: CallPathScope, window: StatsWindow): Promise<CallPathCounts> {
    return countsOf(await statsTotals(ctx, 'call_path_stats', whereOf(scope), COLUMNS, window));
  },

  /** Deletes rows past their span's keeping: minutes after a day and an hour, quarter hours after 91 days. */
  async purge(ctx: RequestContext, now: Date): Promise<number> {
    return ctx.em.nativeDelete(CallPathStat, {
      $or: [
        { span: 60, bucket: { $lt: new Date(now.getTime() - 25 * 3_600_000) } },
        { span: 900, bucket: { $lt: new Date(now.getTime() - 91 * 86_400_000) } },
      ],
    });
  },
};
