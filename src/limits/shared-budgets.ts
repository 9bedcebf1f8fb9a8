import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateWindow } from '../config/config.js';

// Budgets of points per fixed window, shared by every API process through one
// PostgreSQL row per key (rate-limiter-flexible's PostgreSQL store, on the
// unlogged api_budgets table). A process does not write that row for each
// request: it reserves a lease of points (a fiftieth of the quota, or just
// what one request needs when the quota is small) and spends it in memory, so
// a key costs one statement per lease, about fifty per window.
//
// - No process spends points it has not reserved, so all processes together
//   never admit more than the quota.
// - A lease not spent when the window ends is lost: with n processes, at most
//   (n - 1) leases of a key's quota (2 % each) go unspent when it runs out.
// - What a process reports as remaining is the quota less what every process
//   had reserved at its last lease, plus its own lease still unspent.
// - If the database does not answer, a lease comes from an in-memory store
//   of the same quota (the library's insurance limiter): each process then
//   limits on its own until the database is back.

export interface Spent {
  allowed: boolean;
  /** Points left in the window, as this process knows it. */
  remaining: number;
  /** Seconds until the window ends (at least 1). */
  resetSeconds: number;
}

interface Lease {
  /** Points reserved and not yet spent. */
  left: number;
  /** Points all processes had reserved in the window at this lease. */
  shared: number;
  /** When the window ends (epoch ms). */
  endsAt: number;
  /** The store refused: the quota is spent until endsAt, whatever is left here. */
  exhausted: boolean;
  pending?: Promise<void>;
}

/** A lease is a fiftieth of the quota (quotas up to 50 are reserved point by point). */
const LEASES_PER_WINDOW = 50;
/** Expired leases are swept when this many keys are held. */
const SWEEP_AT = 10_000;

export class SharedBudgets {
  private readonly stores = new Map<string, RateLimiterPostgres>();
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Spends `points` of `key`'s quota, or says it cannot and when the window
   * ends: at once when this process's lease decides (`spendNow`), else once
   * the store has granted a new lease.
   */
  spend(key: string, quota: RateWindow, points: number): Spent | Promise<Spent> {
    return this.spendNow(key, quota, points) ?? this.spendLeased(key, quota, points);
  }

  /** What the lease in hand decides (points enough, or the quota spent); undefined when the store must be asked. */
  spendNow(key: string, quota: RateWindow, points: number): Spent | undefined {
    const lease = this.leases.get(key);
    if (!lease || lease.pending) return undefined;
    const now = this.clock();
    if (now >= lease.endsAt) return undefined;
    if (lease.left >= points) {
      lease.left -= points;
      return { allowed: true, remaining: this.remaining(lease, quota), resetSeconds: this.resetSeconds(lease, now) };
    }
    return lease.exhausted
      ? { allowed: false, remaining: this.remaining(lease, quota), resetSeconds: this.resetSeconds(lease, now) }
      : undefined;
  }

  private async spendLeased(key: string, quota: RateWindow, points: number): Promise<Spent> {
    for (;;) {
      const now = this.clock();
      let lease = this.leases.get(key);
      if (lease && !lease.pending && now >= lease.endsAt) {
        this.leases.delete(key);
        lease = undefined;
      }
      if (lease?.pending) {
        await lease.pending;
        continue;
      }
      const decided = this.spendNow(key, quota, points);
      if (decided) return decided;
      const held = lease ?? { left: 0, shared: 0, endsAt: Number.POSITIVE_INFINITY, exhausted: false };
      if (!lease) {
        if (this.leases.size >= SWEEP_AT) this.sweep(now);
        this.leases.set(key, held);
      }
      const want = Math.max(points - held.left, Math.floor(quota.max / LEASES_PER_WINDOW));
      held.pending = this.reserve(key, quota, want, held).finally(() => (held.pending = undefined));
      await held.pending;
    }
  }

  /** Where `key`'s quota stands as this process last knew it, spending nothing; undefined when it has no lease of it. */
  standing(key: string, quota: RateWindow): Spent | undefined {
    const lease = this.leases.get(key);
    const now = this.clock();
    if (!lease || lease.pending || now >= lease.endsAt) return undefined;
    return {
      allowed: lease.left > 0 || !lease.exhausted,
      remaining: this.remaining(lease, quota),
      resetSeconds: this.resetSeconds(lease, now),
    };
  }

  /** Forgets what every process spent of `key` in its window (a success that clears earlier failures). */
  async reset(key: string, quota: RateWindow): Promise<void> {
    this.leases.delete(key);
    await this.store(quota).delete(key);
  }

  /** Gives back points spent here (a request another budget refused). */
  refund(key: string, points: number): void {
    const lease = this.leases.get(key);
    if (lease && this.clock() < lease.endsAt) lease.left += points;
  }

  private async reserve(key: string, quota: RateWindow, want: number, lease: Lease): Promise<void> {
    let result: RateLimiterRes;
    let granted = want;
    try {
      result = await this.store(quota).consume(key, want);
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      // The store counts the whole reservation and refuses it: what was still under the quota is this lease's.
      result = refusal;
      granted = Math.max(0, want - (refusal.consumedPoints - quota.max));
      lease.exhausted = true;
    }
    lease.left += granted;
    // Refused, the store holds more than the quota: all of it is reserved, what is left here included.
    lease.shared = Math.min(result.consumedPoints, quota.max);
    lease.endsAt = this.clock() + Math.max(0, result.msBeforeNext);
  }

  private store(quota: RateWindow): RateLimiterPostgres {
    const name = `${quota.max}/${quota.windowSeconds}`;
    let store = this.stores.get(name);
    if (!store) {
      const shape = { points: quota.max, duration: quota.windowSeconds, keyPrefix: 'api' };
      store = new RateLimiterPostgres({
        ...shape,
        storeClient: this.pool,
        tableName: 'api_budgets',
        tableCreated: true,
        insuranceLimiter: new RateLimiterMemory(shape),
      });
      this.stores.set(name, store);
    }
    return store;
  }

  private remaining(lease: Lease, quota: RateWindow): number {
    return Math.max(0, Math.min(quota.max, quota.max - lease.shared + lease.left));
  }

  private resetSeconds(lease: Lease, now: number): number {
    return Math.max(1, Math.ceil((lease.endsAt - now) / 1000));
  }

  private sweep(now: number): void {
    for (const [key, lease] of this.leases) if (!lease.pending && now >= lease.endsAt) this.leases.delete(key);
  }
}
