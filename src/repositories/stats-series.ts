import type { RequestContext } from '../context/request-context.js';
import type { StatsBucket } from '../kernel/attempt-outcome.js';

// An endpoint's record over time read back in buckets of a minute, an hour or a day of the company's zone, from a
// table of counts per minute and per quarter hour (webhook_stats, call_path_stats). One statement: the bucket starts
// of the window, each with the sums of the rows that fall in it. Minutes and hours are real ones from the window's
// start (a local hour's start in the zone), so the day the clocks go back has 25 hours, the repeated one twice; days
// are the zone's calendar days, of 23 to 25 hours.

/** Whose rows: each column equal to its value. */
export type StatsWhere = Array<[column: string, value: number | string]>;

/** Rows of the minute span for minute buckets; of the quarter-hour span (whole in every zone's hours) otherwise. */
const SPAN: Record<StatsBucket, number> = { minute: 60, hour: 900, day: 900 };

/** The sums of the rows `r` in the columns named. */
const sumsOf = (columns: readonly string[]) => columns.map((c) => `coalesce(sum(r.${c}), 0)::int AS ${c}`).join(', ');

/** The scope's conditions on `alias`, its values from $1, and the window's params after them. */
function scoped(alias: string, where: StatsWhere, window: { from: Date; to: Date }, bucket: StatsBucket) {
  const n = where.length;
  return {
    conditions: [
      ...where.map(([column], i) => `${alias}.${column} = $${i + 1}`),
      `${alias}.span = $${n + 3}`,
      `${alias}.bucket >= $${n + 1}`,
      `${alias}.bucket < $${n + 2}`,
    ].join(' AND '),
    from: `$${n + 1}::timestamptz`,
    to: `$${n + 2}::timestamptz`,
    zone: `$${n + 4}`,
    params: [...where.map(([, value]) => value), window.from, window.to, SPAN[bucket]] as unknown[],
  };
}

/** The buckets of [from, to) in `timeZone` (both bounds already on a bucket's start there), oldest first. */
export async function statsSeries(
  ctx: RequestContext,
  table: string,
  where: StatsWhere,
  columns: readonly string[],
  bucket: StatsBucket,
  window: { from: Date; to: Date; timeZone: string },
): Promise<Array<{ at: Date } & Record<string, number>>> {
  const s = scoped('w', where, window, bucket);
  return ctx.sql<{ at: Date } & Record<string, number>>(
    `WITH starts AS (${
      bucket === 'day'
        ? `SELECT DISTINCT generate_series(${s.from} AT TIME ZONE ${s.zone}, ${s.to} AT TIME ZONE ${s.zone} - interval '1 day',
             interval '1 day') AT TIME ZONE ${s.zone} AS at`
        : `SELECT generate_series(${s.from}, ${s.to} - interval '1 ${bucket}', interval '1 ${bucket}') AS at`
    }), rows AS (
       SELECT ${
         bucket === 'day'
           ? `date_trunc('day', w.bucket AT TIME ZONE ${s.zone}) AT TIME ZONE ${s.zone}`
           : `date_bin(interval '1 ${bucket}', w.bucket, ${s.from})`
       } AS at, w.*
       FROM ${table} w WHERE ${s.conditions}
     )
     SELECT s.at, ${sumsOf(columns)} FROM starts s LEFT JOIN rows r ON r.at = s.at GROUP BY s.at ORDER BY s.at`,
    bucket === 'day' ? [...s.params, window.timeZone] : s.params,
  );
}

/** The sums of [from, to): what `statsSeries` gives, added up, without a row per bucket. */
export async function statsTotals(
  ctx: RequestContext,
  table: string,
  where: StatsWhere,
  columns: readonly string[],
  bucket: StatsBucket,
  window: { from: Date; to: Date },
): Promise<Record<string, number>> {
  const s = scoped('r', where, window, bucket);
  const [row] = await ctx.sql<Record<string, number>>(
    `SELECT ${sumsOf(columns)} FROM ${table} r WHERE ${s.conditions}`,
    s.params,
  );
  return row;
}
