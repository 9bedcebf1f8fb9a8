// What became of a delivery attempt, as an endpoint's record over time counts it (docs/webhooks.md, "Endpoint
// health"), and the histogram its answer times are kept in. The engine classifies each attempt once; the stats
// read the counts back.

/** The outcomes an attempt is counted under, in the order the record lists them. */
export const ATTEMPT_OUTCOMES = [
  'success',
  'client_error',
  'server_error',
  'timeout',
  'network',
  'broker_refused',
  'interrupted',
] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** What the classification needs of an attempt's result. */
export interface OutcomeFacts {
  statusCode: number | null;
  error: string | null;
  timedOut?: boolean;
  /** The destination is a message broker. */
  broker?: boolean;
  /** The attempt never finished: its worker stopped. */
  interrupted?: boolean;
}

/**
 * An attempt's outcome: a 2xx answer or a broker that took the message is a success; another status is a client
 * error (1xx, 3xx, 4xx: the endpoint refused it) or a server error (5xx); without one, the attempt timed out, the
 * connection failed (refused, reset, DNS, TLS), the broker refused it, or its worker stopped.
 */
export function attemptOutcome(result: OutcomeFacts): AttemptOutcome {
  if (result.interrupted) return 'interrupted';
  if (result.statusCode !== null) {
    if (result.statusCode >= 200 && result.statusCode < 300) return 'success';
    return result.statusCode >= 500 ? 'server_error' : 'client_error';
  }
  if (result.error === null) return 'success';
  if (result.timedOut) return 'timeout';
  return result.broker ? 'broker_refused' : 'network';
}

/**
 * The upper bounds, in milliseconds, of the answer-time histogram's slots; one more slot holds the answers slower
 * than the last. Roughly three slots a decade: a percentile read from it is the upper bound of its slot.
 */
export const LATENCY_BOUNDS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000] as const;
export const LATENCY_SLOTS = LATENCY_BOUNDS_MS.length + 1;
/** Each slot's column in webhook_stats: `lt_<bound>` (answers under the bound), then `ge_<last bound>`. */
export const LATENCY_COLUMNS = histogramColumns('', LATENCY_BOUNDS_MS);

/** A histogram's columns: `<prefix>lt_<bound>` for each bound, then `<prefix>ge_<last bound>`. */
export function histogramColumns(prefix: string, bounds: readonly number[]): string[] {
  return [...bounds.map((bound) => `${prefix}lt_${bound}`), `${prefix}ge_${bounds[bounds.length - 1]}`];
}

/** The slot of an answer time (ms): the first whose bound it is under. */
export const latencySlot = (ms: number, bounds: readonly number[] = LATENCY_BOUNDS_MS): number => {
  const i = bounds.findIndex((bound) => ms < bound);
  return i === -1 ? bounds.length : i;
};

/**
 * The `p`th percentile (0 < p <= 100) of a histogram: the upper bound of the slot where the count reaches p % of
 * the answers (the last slot: its lower bound); null without answers.
 */
export function histogramPercentile(
  counts: readonly number[],
  p: number,
  bounds: readonly number[] = LATENCY_BOUNDS_MS,
): number | null {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const target = Math.ceil((p / 100) * total);
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i];
    if (seen >= target) return bounds[Math.min(i, bounds.length - 1)];
  }
  return bounds[bounds.length - 1];
}

/** The buckets an endpoint's record is read in: a minute, an hour or a day of the company's zone. */
export const STATS_BUCKETS = ['minute', 'hour', 'day'] as const;
export type StatsBucket = (typeof STATS_BUCKETS)[number];
