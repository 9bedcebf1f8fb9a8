import type { RequestContext } from '../context/request-context.js';
import { latencySlot } from '../kernel/attempt-outcome.js';
import {
  type AnswerOutcome,
  addCounts,
  CALL_PATH_BOUNDS_MS,
  type CallPathKind,
  emptyCounts,
} from '../kernel/call-path-outcome.js';
import { errorFields, type Logger } from '../observability/logger.js';
import { callPathStatsRepository, type CallPathMinute } from '../repositories/call-path-stats.repository.js';

// The call path's record over time (docs/call-routing.md, "Endpoint health"), kept off the call path: each question
// asked of a decision endpoint or an agent tool is counted here in memory, in its endpoint's minute, and the counts
// are added to call_path_stats every few seconds by one unit of work (and once more when the process stops). A
// process killed outright loses at most its last few seconds of counts, never an answer: the record is a measure,
// the call's own decision is written with the call.

/** Whose record a question counts in. */
export interface RecordTarget {
  kind: CallPathKind;
  id: number;
  companyId: number;
}

/** What one question came to. */
export interface Question {
  outcome: AnswerOutcome;
  /** ms from the call's arrival to the decision, less the endpoint's own time. */
  addedMs: number;
  /** ms from the request sent to its answer read; null when none was sent. */
  endpointMs: number | null;
  hedged: boolean;
  /** The breaker opened on this question's failure. */
  opened: boolean;
}

/** Minutes kept while the database cannot take them (an endpoint's minute each), before the oldest are dropped. */
const PENDING_MAX = 100_000;

export class CallPathRecord {
  private pending = new Map<string, CallPathMinute>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private context: (() => RequestContext) | undefined;

  constructor(
    private readonly enabled: boolean,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts a question in its endpoint's minute: a few map and array updates, nothing awaited. */
  count(target: RecordTarget, question: Question): void {
    if (!this.enabled) return;
    const minute = Math.floor(this.now() / 60_000) * 60_000;
    const key = `${target.kind}:${target.id}:${minute}`;
    let m = this.pending.get(key);
    if (!m) {
      if (this.pending.size >= PENDING_MAX) this.dropOldest();
      m = {
        kind: target.kind,
        endpointId: target.id,
        companyId: target.companyId,
        minute: new Date(minute),
        ...emptyCounts(),
      };
      this.pending.set(key, m);
    }
    m.outcomes[question.outcome] += 1;
    if (question.hedged) m.hedged += 1;
    if (question.opened) m.breakerOpenings += 1;
    m.added[latencySlot(Math.max(0, question.addedMs), CALL_PATH_BOUNDS_MS)] += 1;
    if (question.endpointMs !== null) m.endpoint[latencySlot(question.endpointMs, CALL_PATH_BOUNDS_MS)] += 1;
  }

  /** Adds the counts to the database every `everyMs`, each time in a unit of work of `context()`. */
  start(context: () => RequestContext, everyMs: number): void {
    this.context = context;
    if (!this.enabled || this.timer) return;
    this.timer = setInterval(() => void this.flush(), everyMs);
    this.timer.unref();
  }

  /** Adds what is counted so far; one at a time. A failure keeps the counts for the next. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** Stops the timer and adds what is left. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flushing;
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0 || !this.context) return;
    const taken = this.pending;
    this.pending = new Map();
    try {
      await this.context().unitOfWork((ctx) => callPathStatsRepository.add(ctx, [...taken.values()]));
    } catch (error) {
      this.log.warn('the call path record could not be written; kept for the next try', errorFields(error));
      for (const [key, m] of taken) this.merge(key, m);
    }
  }

  /** Puts back a minute that could not be written, adding to what was counted since. */
  private merge(key: string, m: CallPathMinute): void {
    const now = this.pending.get(key);
    if (now) addCounts(now, m);
    else if (this.pending.size < PENDING_MAX) this.pending.set(key, m);
  }

  private dropOldest(): void {
    const [oldest] = this.pending.keys();
    this.pending.delete(oldest);
    this.log.warn('the call path record dropped a minute of counts: the database has not taken them', {
      minute: oldest,
    });
  }
}
