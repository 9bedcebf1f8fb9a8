import { ATTEMPT_OUTCOMES, LATENCY_BOUNDS_MS, LATENCY_COLUMNS } from '../../kernel/attempt-outcome.js';

// Each webhook's record over time (docs/webhooks.md, "Endpoint health"), kept as the engine settles attempts: the
// settle statements count the attempts they record into the webhook's row of this minute and of this quarter hour
// (webhook_stats, entities/webhook-stat.entity.ts), in the same statement, so the record is exactly the attempts
// log's and costs no round trip. Rows are upserted in (webhook, span) order, as the counters are: two settles never
// wait on each other's rows in opposite orders.

const SPANS = '(VALUES (60::smallint), (900::smallint)) AS p(span)';
/** The outcomes' columns: named as the outcomes are. */
const COUNTED = ATTEMPT_OUTCOMES;
/** Each attempt's answer-time slot, counted into its column. */
const LATENCY = LATENCY_COLUMNS.map(
  (_, k) => `count(*) FILTER (WHERE width_bucket(s.duration, '{${LATENCY_BOUNDS_MS.join(',')}}'::int[]) = ${k})::int`,
).join(', ');

/**
 * The upsert of the stats rows of `settled` (the CTE of the attempts just recorded: webhook_id, company_id,
 * duration), as a CTE body: `outcome`, each attempt's outcome (an expression over `s`); `failed`, whether it ended
 * its delivery's schedule.
 */
export function statsUpsert(outcome: string, failed: string): string {
  return `
    INSERT INTO webhook_stats AS w (webhook_id, span, bucket, company_id, ${COUNTED.join(', ')}, failed, ${LATENCY_COLUMNS.join(', ')})
    SELECT s.webhook_id, p.span, date_bin(make_interval(secs => p.span), now(), timestamptz '2000-01-01 00:00:00+00'),
      min(s.company_id), ${ATTEMPT_OUTCOMES.map((o) => `count(*) FILTER (WHERE ${outcome} = '${o}')::int`).join(', ')},
      count(*) FILTER (WHERE ${failed})::int, ${LATENCY}
    FROM settled s CROSS JOIN ${SPANS}
    GROUP BY s.webhook_id, p.span ORDER BY 1, 2
    ON CONFLICT (webhook_id, span, bucket) DO UPDATE SET ${[...COUNTED, 'failed', ...LATENCY_COLUMNS]
      .map((c) => `${c} = w.${c} + excluded.${c}`)
      .join(', ')}`;
}

/** One attempt's stats, a statement of its own (a 410, settled apart from the batches): $1 webhook, $2 company, $3 duration, $4 outcome. */
export const STATS_OF_ONE = `WITH settled AS (SELECT $1::int AS webhook_id, $2::int AS company_id, $3::int AS duration, $4::text AS outcome)
  ${statsUpsert('s.outcome', 'true')}`;
