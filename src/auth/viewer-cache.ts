import { randomUUID } from 'node:crypto';
import type { Viewer } from '../context/request-context.js';
import { listen, type Listener } from '../db/listener.js';
import type { Logger } from '../observability/logger.js';

// Viewers by Bearer token, for a short time, so a request with a known token
// costs neither a signature check nor a database round trip. Every change that
// can alter a viewer (revocation, the user, the role and its permissions, the
// company, the permission catalog) is announced on one channel by triggers in
// the database (migration viewer_changes), so each process forgets the viewers
// it concerns within a notification's latency, whoever made the change. While
// the channel is not listened to, nothing is cached.

export const VIEWER_CHANNEL = 'viewer_changes';

/** What a notification names: one token, one user, one role, one company, or everything. */
export type ViewerChange = { jti: string } | { user: number } | { role: number } | { company: number } | 'all';

/** Whether a change can alter what a viewer is or may do. */
export function changeConcerns(change: ViewerChange, viewer: Viewer): boolean {
  if (change === 'all') return true;
  return 'jti' in change
    ? viewer.claims.jti === change.jti
    : 'user' in change
      ? viewer.user.id === change.user
      : 'role' in change
        ? viewer.role.id === change.role
        : viewer.company.id === change.company;
}

interface Entry {
  viewer: Viewer;
  /** When the entry stops being used: the cache lifetime, or the token's own end if sooner. */
  until: number;
  /** From when a use of the entry has it read again, in the background (half its lifetime); undefined once asked or when the token ends first. */
  renewAt?: number;
}

export class ViewerCache {
  private readonly entries = new Map<string, Entry>();
  private listener?: Listener;
  private listening = false;
  /** Bumped by every change, so a viewer read before a change is never stored after it. */
  private generation = 0;
  private readonly barriers = new Map<string, () => void>();
  private readonly watchers = new Set<(change: ViewerChange) => void>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached viewer of a token still valid, if any. */
  get(token: string): Viewer | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.until > this.now()) return entry.viewer;
    this.entries.delete(token);
    return undefined;
  }

  /** A mark to pass to `set`, taken before the viewer is read. */
  mark(): number {
    return this.generation;
  }

  /** Keeps a viewer read since `mark`, unless a change came in between or nothing is listened to. */
  set(token: string, viewer: Viewer, mark: number, tokenEndsAt: number): void {
    if (!this.listening || mark !== this.generation || this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    const now = this.now();
    const until = Math.min(now + this.ttlMs, tokenEndsAt);
    // A token that ends first has nothing to be renewed into.
    const renewAt = now + this.ttlMs / 2 < until ? now + this.ttlMs / 2 : undefined;
    this.entries.set(token, { viewer, until, renewAt });
  }

  /**
   * Whether a token's viewer, in use past half its lifetime, is to be read again now, ahead of its end
   * (docs/adr/0113-viewers-renewed-ahead.md): true once per entry, so one read renews it.
   */
  renewing(token: string): boolean {
    const entry = this.entries.get(token);
    if (entry?.renewAt === undefined || entry.renewAt > this.now()) return false;
    entry.renewAt = undefined;
    return true;
  }

  /** Forgets one token's viewer (read again, it was found no more). */
  drop(token: string): void {
    this.entries.delete(token);
  }

  /** Forgets every viewer a change concerns (at once in this process; the trigger tells the others). */
  forget(change: ViewerChange): void {
    this.generation++;
    this.forgetEntries(change);
    for (const watcher of this.watchers) watcher(change);
  }

  /** Calls `watcher` with every change, after the cache has forgotten what it concerns (live subscriptions re-check their viewer). */
  watch(watcher: (change: ViewerChange) => void): () => void {
    this.watchers.add(watcher);
    return () => void this.watchers.delete(watcher);
  }

  private forgetEntries(change: ViewerChange): void {
    if (change === 'all') return this.entries.clear();
    for (const [token, { viewer }] of this.entries) if (changeConcerns(change, viewer)) this.entries.delete(token);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Listens for changes; caching starts once listening and stops whenever the connection is lost. */
  start(databaseUrl: string, log: Logger): void {
    this.listener = listen(
      databaseUrl,
      VIEWER_CHANNEL,
      {
        onNotify: (payload) => this.receive(payload ?? ''),
        onListening: () => {
          this.forget('all'); // whatever changed while not listening (live subscriptions re-check too)
          this.listening = true;
        },
        onLost: () => {
          this.listening = false;
          this.generation++;
          this.forgetEntries('all');
          this.releaseBarriers(); // nothing is cached now, so nothing is stale
        },
      },
      log,
    );
  }

  /**
   * Resolves once every change committed before the call has reached this
   * process: a notification sent now arrives after all of theirs.
   */
  async barrier(notify: (channel: string, payload: string) => Promise<unknown>): Promise<void> {
    if (!this.listening) return;
    const id = randomUUID();
    const arrived = new Promise<void>((resolve) => this.barriers.set(id, resolve));
    await notify(VIEWER_CHANNEL, `barrier:${id}`);
    await arrived;
  }

  async stop(): Promise<void> {
    this.listening = false;
    this.entries.clear();
    this.releaseBarriers();
    await this.listener?.stop();
  }

  private releaseBarriers(): void {
    for (const release of this.barriers.values()) release();
    this.barriers.clear();
  }

  private receive(payload: string): void {
    const colon = payload.indexOf(':');
    const [kind, value] = colon < 0 ? [payload, ''] : [payload.slice(0, colon), payload.slice(colon + 1)];
    if (kind === 'barrier') {
      this.barriers.get(value)?.();
      this.barriers.delete(value);
    } else if (kind === 'jti') this.forget({ jti: value });
    else if (kind === 'user') this.forget({ user: Number(value) });
    else if (kind === 'role') this.forget({ role: Number(value) });
    else if (kind === 'company') this.forget({ company: Number(value) });
    else this.forget('all');
  }
}
