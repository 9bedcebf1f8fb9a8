// Work the call path puts off until its answers are out (docs/adr/0096-decisions-recorded-together.md): the records
// of decisions and tool calls run on the event loop that answers the next calls, so they wait for a quiet moment, no
// inbound call or tool call in flight for QUIET_MS, or at most WAIT_MAX_MS, whichever comes first. A process that
// answers a call every few milliseconds writes them in its gaps; one never quiet writes them every WAIT_MAX_MS.

const QUIET_MS = 1;
const WAIT_MAX_MS = 10;

export class QuietMoments {
  private inFlight = 0;
  private waiting: Array<() => void> = [];
  private quiet: NodeJS.Timeout | undefined;
  private latest: NodeJS.Timeout | undefined;

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

  /** Runs `task` at the next quiet moment, or within WAIT_MAX_MS. */
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
    const tasks = this.waiting;
    this.waiting = [];
    for (const task of tasks) task();
  }

  private whenQuiet(): void {
    if (this.inFlight === 0 && this.waiting.length > 0) this.quiet ??= setTimeout(() => this.run(), QUIET_MS).unref();
  }
}
