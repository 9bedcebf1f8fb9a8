// Work the call path puts off until its answers are out (docs/adr/0096-decisions-recorded-together.md, spaced by
// docs/adr/0099-call-path-records-spaced.md): the records of decisions and tool calls run on the event loop that
// answers the next calls, so they wait for a quiet moment, no inbound call or tool call in flight for QUIET_MS, and
// run at most once every SPACING_MS, so that a steady stream of calls is recorded in batches, not one unit of work
// per call; a process never quiet runs them WAIT_MAX_MS after the first was put off.

const QUIET_MS = 1;
/** Put-off work runs at most this often (at the first quiet moment after it). */
const SPACING_MS = 50;
/** Put-off work waits no longer than this, quiet moment or not. */
const WAIT_MAX_MS = 100;

export class QuietMoments {
  private inFlight = 0;
  private waiting: Array<() => void> = [];
  private quiet: NodeJS.Timeout | undefined;
  private latest: NodeJS.Timeout | undefined;
  /** performance.now() when put-off work last ran. */
  private ranAt = Number.NEGATIVE_INFINITY;

  /** Runs an answer as in flight: nothing put off runs while it is. */
  async during<T>(answer: () => Promise<T>): Promise<T> {
    this.inFlight += 1;
    clearTimeout(this.quiet);
    this.quiet = undefined;
    try {
      return await answer();
    } finally {
      this.inFlight -= 1;
      this.whenQuiet();
    }
  }

  /** Runs `task` at the first quiet moment SPACING_MS after the last run, or within WAIT_MAX_MS. */
  later(task: () => void): void {
    this.waiting.push(task);
    this.latest ??= setTimeout(() => this.run(), WAIT_MAX_MS).unref();
    this.whenQuiet();
  }

  /** Runs what was put off now (at shutdown). */
  run(): void {
    clearTimeout(this.quiet);
    clearTimeout(this.latest);
    this.quiet = this.latest = undefined;
    this.ranAt = performance.now();
    const tasks = this.waiting;
    this.waiting = [];
    for (const task of tasks) task();
  }

  private whenQuiet(): void {
    if (this.inFlight > 0 || this.waiting.length === 0) return;
    const spaced = this.ranAt + SPACING_MS - performance.now();
    this.quiet ??= setTimeout(() => this.run(), Math.max(QUIET_MS, spaced)).unref();
  }
}
