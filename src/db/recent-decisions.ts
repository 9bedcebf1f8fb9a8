import type { Watcher } from './config-cache.js';

// Which calls have been decided lately, in memory (docs/adr/0095-call-facts-in-memory.md), so a provider that asks
// about a call again is answered the decision already made without a read of the database on every call. Each API
// process keeps the calls it decided and hears of the others' after each record's commit (`d<sid>,<sid>...` on
// `call_path_changes`); when it begins listening it reads the calls decided in the window before. A call it does not
// know was not decided within the window, as long as what it keeps covers the window: until its first read is done,
// while the channel is not listened to, and when more calls were decided in a window than it keeps, the database is
// asked.

/** A call decided at a time (ms since the epoch). */
interface Decided {
  sid: string;
  at: number;
}

const TOLD = /^d(CA[0-9a-f]{32}(?:,CA[0-9a-f]{32})*)$/;

export class RecentDecisions implements Watcher {
  /** Call sids and when each was decided, oldest first. */
  private calls = new Map<string, number>();
  /** From when every decision is known here (ms since the epoch); undefined while that is not so. */
  private coveredFrom: number | undefined;
  /** Bumped at each reset, so a read begun before one is not taken after it. */
  private generation = 0;

  /**
   * `load`: the calls decided since a time, read from the newest `limit` calls back, and from when that covers
   * every call; `windowMs`: how long after a call's decision the provider may ask about it again; `max`: calls kept.
   */
  constructor(
    private readonly load: (since: Date, limit: number) => Promise<{ calls: Decided[]; coveredFrom: number }>,
    private readonly windowMs = 10 * 60_000,
    private readonly max = 200_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the call was decided within the window: known, or undefined when the database must be asked. */
  decided(sid: string): boolean | undefined {
    if (this.calls.has(sid)) return true;
    const now = this.now();
    return this.coveredFrom !== undefined && this.coveredFrom <= now - this.windowMs ? false : undefined;
  }

  /** A call decided, here or (told by its commit) elsewhere. */
  add(sid: string, at = this.now()): void {
    if (this.calls.has(sid)) return;
    this.calls.set(sid, at);
    this.prune(at);
  }

  /** `d<sid>,<sid>...`: calls another process (or this one) recorded as decided. */
  told(payload: string): void {
    const sids = TOLD.exec(payload)?.[1];
    if (sids) for (const sid of sids.split(',')) this.add(sid);
  }

  reset(listening: boolean): void {
    const generation = ++this.generation;
    this.coveredFrom = undefined;
    if (!listening) return;
    const from = this.now() - this.windowMs;
    this.load(new Date(from), this.max).then(
      ({ calls, coveredFrom }) => {
        if (generation !== this.generation) return;
        // Oldest first, then those told meanwhile.
        const told = this.calls;
        this.calls = new Map();
        for (const { sid, at } of calls.sort((a, b) => a.at - b.at)) this.calls.set(sid, at);
        for (const [sid, at] of told) if (!this.calls.has(sid)) this.calls.set(sid, at);
        this.coveredFrom = coveredFrom;
        this.prune(this.now());
      },
      () => undefined, // the database away: asked per call until the next reset reads again
    );
  }

  get size(): number {
    return this.calls.size;
  }

  /** Forgets calls decided before the window, and the oldest past `max` (the window is then covered from later). */
  private prune(now: number): void {
    for (const [sid, at] of this.calls) {
      const old = at < now - this.windowMs;
      if (!old && this.calls.size <= this.max) break;
      this.calls.delete(sid);
      if (!old && this.coveredFrom !== undefined) this.coveredFrom = Math.max(this.coveredFrom, at);
    }
  }
}
