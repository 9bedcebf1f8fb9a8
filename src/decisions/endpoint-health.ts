// The health of one decision endpoint, in this process: its circuit breaker
// and its recent answer times (docs/adr/0068-decisions-in-the-call-path.md).
//
// closed     every call asks the endpoint; FAILURES_TO_OPEN failures in a row open it.
// open       every call gets its fallback at once, for openMs (DECISION_BREAKER_OPEN).
// half_open  the first call after that asks the endpoint (the probe); calls
//            meanwhile get their fallback at once. The probe's success closes
//            the breaker, its failure opens it again.

export const FAILURES_TO_OPEN = 5;
/** Answer times kept for the recent p95 (the hedge's trigger). */
const WINDOW = 200;
/** Answers needed before the p95 means anything. */
const MIN_SAMPLES = 20;

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface BreakerView {
  state: BreakerState;
  consecutiveFailures: number;
  openedAt: Date | null;
  /** The p95 of recent successful answers, ms; null until enough are known. */
  recentP95Ms: number | null;
}

export class EndpointHealth {
  private failures = 0;
  private openedAt: number | null = null;
  private probing = false;
  private readonly times: number[] = [];
  private next = 0;
  private p95: number | null = null;
  private p95Stale = true;

  constructor(
    private readonly openMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether this call may ask the endpoint (claiming the probe when the breaker is half-open). */
  admit(): boolean {
    if (this.openedAt === null) return true;
    if (this.now() - this.openedAt < this.openMs || this.probing) return false;
    this.probing = true;
    return true;
  }

  succeeded(ms: number): void {
    this.failures = 0;
    this.openedAt = null;
    this.probing = false;
    if (this.times.length < WINDOW) this.times.push(ms);
    else this.times[this.next] = ms;
    this.next = (this.next + 1) % WINDOW;
    this.p95Stale = true;
  }

  /** Counts a failure; true when it opens the breaker (or opens it again, the probe having failed). */
  failed(): boolean {
    this.failures += 1;
    const opens = this.probing || (this.openedAt === null && this.failures >= FAILURES_TO_OPEN);
    if (this.probing || this.failures >= FAILURES_TO_OPEN) this.openedAt = this.now();
    this.probing = false;
    return opens;
  }

  /** The breaker closed: every call asks the endpoint (cheaper than `view`, which sorts the recent times). */
  get closed(): boolean {
    return this.openedAt === null;
  }

  recentP95(): number | null {
    if (this.times.length < MIN_SAMPLES) return null;
    if (this.p95Stale) {
      const sorted = [...this.times].sort((a, b) => a - b);
      this.p95 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)];
      this.p95Stale = false;
    }
    return this.p95;
  }

  view(): BreakerView {
    const open = this.openedAt !== null;
    return {
      state: !open ? 'closed' : this.now() - this.openedAt! < this.openMs ? 'open' : 'half_open',
      consecutiveFailures: this.failures,
      openedAt: open ? new Date(this.openedAt!) : null,
      recentP95Ms: this.recentP95() === null ? null : Math.ceil(this.recentP95()!),
    };
  }
}
