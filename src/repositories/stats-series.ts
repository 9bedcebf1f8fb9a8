import type { RequestContext } from '../context/request-context.js';
import type { StatsBucket } from '../kernel/attempt-outcome.js';
import { bucketStarts, type StatsWindow } from '../kernel/time/stats-window.js';

// An endpoint's record over time read back in buckets of a minute, an hour or a day of the company's zone, from a
// table of counts per minute and per quarter hour (webhook_stats, call_path_stats). One statement sums the rows of the
// window by bucket, the bucket found by arithmetic on each row's start: minutes and hours are real ones from the
// window's start (a local hour's start in the zone), so the day the clocks go back has 25 hours, the repeated one
// twice; days are the zone's calendar days, of 23 to 25 hours, whose starts are computed here and found for each row
// by `width_bucket`. Only buckets with rows come back; the empty ones are filled in here.

/** Whose rows: each column equal to its value. */
export type StatsWhere = Array<[column: string, value: number | string]>;

/** Rows of the minute span for minute buckets; of the quarter-hour span (whole in every zone's hours) otherwise. */
const SPAN: Record<StatsBucket, number> = { minute: 60, hour: 900, day: 900 };

/** The sums of the rows `r` in the columns named. */
const sumsOf = (columns: readonly string[]) => columns.map((c) => `sum(r.${c})::int AS ${c}`).join(', ');

/** The scope's conditions on the rows `r`, its values from $1, and the window's params after them. */
function scoped(where: StatsWhere, window: { from: Date; to: Date }, bucket: StatsBucket) {
  const n = where.length;
  return {
    conditions: [
      ...where.map(([column], i) => `r.${column} = $${i + 1}`),
      `r.span = $${n + 3}`,
      `r.bucket >= $${n + 1}`,
      `r.bucket < $${n + 2}`,
    ].join(' AND '),
    from: `$${n + 1}::timestamptz`,
    next: `$${n + 4}`,
    params: [...where.map(([, value]) => value), window.from, window.to, SPAN[bucket]] as unknown[],
  };
}

/**
 * Every bucket of the window, oldest first, with the sums of its rows (zeros for a bucket without any). `oneEndpoint`:
 * the scope is one endpoint's, whose minutes are a row each, read as they are (summing a row per group costs the
 * database a third of the statement).
 */
export async function statsSeries(
  ctx: RequestContext,
  table: string,
  where: StatsWhere,
  columns: readonly string[],
  window: StatsWindow,
  oneEndpoint: boolean,
): Promise<Array<{ at: Date } & Record<string, number>>> {
  const { bucket } = window;
  const s = scoped(where, window, bucket);
  const starts = bucketStarts(window);
  // Each row's bucket, from 0: minutes and hours by their distance from the window's start, days by the day starts.
  const index =
    bucket === 'day'
      ? `width_bucket(r.bucket, ${s.next}::timestamptz[]) - 1`
      : `floor(extract(epoch FROM r.bucket - ${s.from}) / ${bucket === 'minute' ? 60 : 3600})::int`;
  const rows = await ctx.sql<{ i: number } & Record<string, number>>(
    oneEndpoint && bucket === 'minute'
      ? `SELECT ${index} AS i, ${columns.map((c) => `r.${c}`).join(', ')} FROM ${table} r WHERE ${s.conditions}`
      : `SELECT ${index} AS i, ${sumsOf(columns)} FROM ${table} r WHERE ${s.conditions} GROUP BY 1`,
    bucket === 'day' ? [...s.params, starts] : s.params,
  );
  const byIndex = new Map(rows.map((row) => [row.i, row]));
  const empty: Record<string, number> = Object.fromEntries(columns.map((c) => [c, 0]));
  return starts.map((at, i) => Object.assign({}, byIndex.get(i) ?? empty, { at }));
}

/** The sums of [from, to): what `statsSeries` gives, added up, without a row per bucket. */
export async function statsTotals(
  ctx: RequestContext,
  table: string,
  where: StatsWhere,
  columns: readonly string[],
  window: StatsWindow,
): Promise<Record<string, number>> {
  const s = scoped(where, window, window.bucket);
  const [row] = await ctx.sql<Record<string, number>>(
    `SELECT ${columns.map((c) => `coalesce(sum(r.${c}), 0)::int AS ${c}`).join(', ')} FROM ${table} r WHERE ${s.conditions}`,
    s.params,
  );
  return row;
}
