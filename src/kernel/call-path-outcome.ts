import { histogramColumns } from './attempt-outcome.js';
import { FALLBACK_REASONS, type FallbackReason } from './call-decision.js';

// What became of a question the call path asked a company's endpoint (a decision endpoint or an agent's tool), as
// the endpoint's record over time counts it (docs/call-routing.md, "Endpoint health"): answered, or the fallback's
// reason; and the two histograms of its times, the time Switchboard added and the endpoint's own.

/** The outcomes a question is counted under, in the order the record lists them. */
export const ANSWER_OUTCOMES = ['answered', ...FALLBACK_REASONS] as const;
export type AnswerOutcome = 'answered' | FallbackReason;

/** The endpoints of the call path with a record: decision endpoints and agent tools. */
export const CALL_PATH_KINDS = ['decision', 'tool'] as const;
export type CallPathKind = (typeof CALL_PATH_KINDS)[number];

/**
 * The upper bounds (ms) of the call path's histograms: finer than a webhook's at the low end, where the time
 * Switchboard adds should be (a millisecond or two), and up to the longest deadline (10 s).
 */
export const CALL_PATH_BOUNDS_MS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000] as const;
/** The time Switchboard added: from the call's arrival to the decision, less the endpoint's own time. */
export const ADDED_COLUMNS = histogramColumns('added_', CALL_PATH_BOUNDS_MS);
/** The endpoint's own time: from the request sent to its answer read (none when no request was sent). */
export const ENDPOINT_COLUMNS = histogramColumns('endpoint_', CALL_PATH_BOUNDS_MS);

/** What an endpoint was asked in a span: by outcome, with the two time histograms (a count per slot). */
export interface CallPathCounts {
  outcomes: Record<AnswerOutcome, number>;
  hedged: number;
  breakerOpenings: number;
  /** The time Switchboard added, per slot of CALL_PATH_BOUNDS_MS. */
  added: number[];
  /** The endpoint's own time, per slot. */
  endpoint: number[];
}

export const emptyCounts = (): CallPathCounts => ({
  outcomes: Object.fromEntries(ANSWER_OUTCOMES.map((o) => [o, 0])) as Record<AnswerOutcome, number>,
  hedged: 0,
  breakerOpenings: 0,
  added: new Array<number>(CALL_PATH_BOUNDS_MS.length + 1).fill(0),
  endpoint: new Array<number>(CALL_PATH_BOUNDS_MS.length + 1).fill(0),
});

/** Adds `more` into `total`, and returns it. */
export function addCounts<T extends CallPathCounts>(total: T, more: CallPathCounts): T {
  for (const o of ANSWER_OUTCOMES) total.outcomes[o] += more.outcomes[o];
  total.hedged += more.hedged;
  total.breakerOpenings += more.breakerOpenings;
  more.added.forEach((n, i) => {
    total.added[i] += n;
  });
  more.endpoint.forEach((n, i) => {
    total.endpoint[i] += n;
  });
  return total;
}
