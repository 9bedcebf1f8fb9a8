import { listen, type Listener } from './listener.js';
import type { Logger } from '../observability/logger.js';

// The call path's configuration in memory (docs/call-routing.md, "Latency budget"): which company a provider
// callback belongs to and the token that signs it, and the decision endpoint of a called number, read once and kept,
// so an inbound call's decision reads no configuration from the database. Every change to what is kept (provider
// accounts, phone numbers, decision endpoints, companies) is announced on one channel by triggers in the database
// (migration call_path_changes), whoever makes it, so each process forgets what a change concerns within a
// notification's latency; the process that makes a change forgets at its commit. While the channel is not listened
// to, nothing is kept. The rest of what a decision reads (callers, calls decided lately) is watched on the same
// channel (contact-directory.ts, recent-decisions.ts).

export const CALL_PATH_CHANNEL = 'call_path_changes';

/** What else the call path keeps from the database, told of the channel's other notifications (contact-directory.ts). */
export interface Watcher {
  /** A notification that is not a company's (digits); 'all' when everything may have changed (a TRUNCATE). */
  told(payload: string): void;
  /** Listening began or ended: whatever is kept may be stale. `listening`: whether changes are heard from now on. */
  reset(listening: boolean): void;
}

interface Entry {
  /** The company the entry is of: a change of that company's configuration forgets it. */
  companyId: number;
  value: unknown;
}

export class ConfigCache {
  private readonly entries = new Map<string, Entry>();
  private listener?: Listener;
  private listening = false;
  /** Bumped by every change, so a value read before a change is never kept after it. */
  private generation = 0;
  private readonly watchers: Watcher[] = [];

  constructor(private readonly maxEntries = 50_000) {}

  /**
   * The value kept under `key`, else `load`'s (kept when it names its company and nothing changed while it was
   * read). A value of `undefined` is never kept: an unknown account or number is read again.
   */
  async get<T>(key: string, load: () => Promise<{ value: T; companyId: number } | undefined>): Promise<T | undefined> {
    const kept = this.entries.get(key);
    if (kept) return kept.value as T;
    const mark = this.generation;
    const loaded = await load();
    if (!loaded) return undefined;
    if (this.listening && mark === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, loaded);
    }
    return loaded.value;
  }

  /** Forgets what a company's change concerns (or everything): at once here; the trigger tells the other processes. */
  forget(companyId: number | 'all'): void {
    this.generation++;
    if (companyId === 'all') return this.entries.clear();
    for (const [key, entry] of this.entries) if (entry.companyId === companyId) this.entries.delete(key);
  }

  /** Adds what else is kept and forgotten by the channel's notifications. */
  watch(watcher: Watcher): void {
    this.watchers.push(watcher);
  }

  private told(payload: string | undefined): void {
    if (payload && /^\d+$/.test(payload)) return this.forget(Number(payload));
    if (!payload || payload === 'all') this.forget('all');
    for (const watcher of this.watchers) watcher.told(payload ?? 'all');
  }

  /** Listening began or ended: nothing kept can be trusted, here or by the watchers. */
  private reset(): void {
    this.forget('all');
    for (const watcher of this.watchers) watcher.reset(this.listening);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Listens for changes; keeping starts once listening and stops whenever the connection is lost. */
  start(databaseUrl: string, log: Logger): void {
    this.listener = listen(
      databaseUrl,
      CALL_PATH_CHANNEL,
      {
        onNotify: (payload) => this.told(payload),
        onListening: () => {
          this.listening = true;
          this.reset(); // whatever changed while not listening
        },
        onLost: () => {
          this.listening = false;
          this.reset();
        },
      },
      log,
    );
  }

  async stop(): Promise<void> {
    this.listening = false;
    this.reset();
    await this.listener?.stop();
  }
}
