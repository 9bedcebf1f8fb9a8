import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config, RateWindow } from '../config/config.js';
import type { RequestContext, Viewer } from '../context/request-context.js';
import { RateLimitedError } from '../kernel/errors.js';

// The rate limits' budgets (docs/adr/0059-one-rate-limiter.md): the store every limit spends from
// (SharedBudgets), and the API's two budgets per request on it (ApiLimits, further down).
//
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

// The API's rate limits (docs/design.md §3, docs/adr/0039-rate-limits-of-the-api.md): every request
// of a signed-in caller spends points from two budgets, its token's and its
// company's, whichever API it comes through (REST, /graphql, a subscribe over
// the WebSocket). A company may be given budgets of its own (the companies
// row's api_limit_* columns, set with `npm run limits`). Every answer says
// where both budgets stand in the IETF RateLimit-Policy and RateLimit fields
// (draft-ietf-httpapi-ratelimit-headers); a spent budget answers 429 with
// Retry-After.

/** What a request costs, in points. */
export const API_POINTS = {
  /** A read (a query, a REST GET, a subscribe). */
  read: 1,
  /** A write (a mutation, a REST POST, PUT, PATCH or DELETE). */
  write: 5,
  /** One more point per this much of the operation's GraphQL cost (src/graphql/limits.ts). */
  perCost: 1000,
} as const;

export type OperationKind = 'query' | 'mutation' | 'subscription';

/** The points an operation of this kind and GraphQL cost spends. */
export const pointsOf = (kind: OperationKind, cost: number): number =>
  (kind === 'mutation' ? API_POINTS.write : API_POINTS.read) + Math.floor(cost / API_POINTS.perCost);

/** How the budgets are counted, as the docs and the schema say it. */
export const POINTS_RULE =
  `A read (a query, a REST GET, a subscribe) costs ${API_POINTS.read} point and a write (a mutation, a REST POST, PUT, PATCH or DELETE) ${API_POINTS.write}, ` +
  `plus 1 point per ${API_POINTS.perCost.toLocaleString('en-US')} of the operation's cost.`;

/** The fields every answer to a signed-in caller carries. */
export type LimitHeaders = Record<string, string>;

interface Overrides {
  /** The company's budgets: its own where it has them, else the defaults. */
  quotas: Config['apiLimits'];
  readAt: number;
}

/** How long a company's own budgets are kept before they are read again. */
const OVERRIDES_TTL_MS = 60_000;

export class ApiLimits {
  private readonly overrides = new Map<number, Overrides>();

  constructor(
    private readonly budgets: SharedBudgets,
    private readonly defaults: Config['apiLimits'],
  ) {}

  /** Whether any budget is on: with both off (API_LIMIT_PER_TOKEN=off, API_LIMIT_PER_COMPANY=off) nothing is charged at all. */
  get enabled(): boolean {
    return this.defaults.perToken !== null || this.defaults.perCompany !== null;
  }

  /**
   * Spends `points` from the caller's token and company budgets. Gives
   * the RateLimit fields to answer with, at once when the viewer, the
   * company's quotas and the leases in hand decide and admit the request
   * (the common case: no promise), else once known; throws (or rejects)
   * 401 without a signed-in caller, and 429 (with the same fields and
   * Retry-After) over a budget.
   */
  charge(ctx: RequestContext, points: number): LimitHeaders | Promise<LimitHeaders> {
    const viewer = ctx.viewerNow();
    const quotas = viewer && this.knownQuotas(viewer.company.id);
    return (quotas && this.admitNow(viewer, quotas, points)) || this.chargeWaiting(ctx, points);
  }

  /** The fields of a request every budget's lease in hand admits, spent; undefined, having spent nothing, when one cannot or refuses. */
  private admitNow(viewer: Viewer, quotas: Config['apiLimits'], points: number): LimitHeaders | undefined {
    const { perToken, perCompany } = quotas;
    const policies: Policy[] = [];
    const tokenKey = `token:${viewer.claims.jti}`;
    if (perToken) {
      const spent = this.budgets.spendNow(tokenKey, perToken, points);
      if (!spent?.allowed) return undefined;
      policies.push(['token', perToken, spent]);
    }
    if (perCompany) {
      const spent = this.budgets.spendNow(`company:${viewer.company.id}`, perCompany, points);
      if (!spent?.allowed) {
        if (perToken) this.budgets.refund(tokenKey, points);
        return undefined;
      }
      policies.push(['company', perCompany, spent]);
    }
    return limitHeaders(policies, quotas);
  }

  private async chargeWaiting(ctx: RequestContext, points: number): Promise<LimitHeaders> {
    const viewer = await ctx.viewer();
    const quotas = this.knownQuotas(viewer.company.id) ?? (await this.quotas(ctx, viewer.company.id));
    const { perToken, perCompany } = quotas;
    const policies: Policy[] = [];
    if (perToken)
      policies.push(['token', perToken, await this.budgets.spend(`token:${viewer.claims.jti}`, perToken, points)]);
    const tokenOk = policies.every(([, , spent]) => spent?.allowed);
    // A request the token's budget refused spends nothing of the company's: its standing is the one last known here.
    const companyKey = `company:${viewer.company.id}`;
    if (perCompany)
      policies.push([
        'company',
        perCompany,
        tokenOk
          ? await this.budgets.spend(companyKey, perCompany, points)
          : this.budgets.standing(companyKey, perCompany),
      ]);
    const refused = policies.find(
      (policy): policy is [string, RateWindow, Spent] =>
        policy[2]?.allowed === false && (policy[0] === 'token' || tokenOk),
    );
    if (!refused) return limitHeaders(policies, quotas);
    // The token's points go back when its company's budget refuses: nothing was done.
    if (refused[0] === 'company' && perToken) {
      this.budgets.refund(`token:${viewer.claims.jti}`, points);
      const [, quota, spent] = policies[0] as [string, RateWindow, Spent];
      policies[0][2] = { ...spent, remaining: Math.min(quota.max, spent.remaining + points) };
    }
    const [name, quota, spent] = refused;
    const whose = name === 'token' ? "This token's" : "This company's";
    const left =
      spent.remaining > 0
        ? `has ${spent.remaining} of its ${quota.max} points per ${quota.windowSeconds} seconds left, and this request costs ${points}`
        : `of ${quota.max} points per ${quota.windowSeconds} seconds is spent`;
    const error = new RateLimitedError(
      spent.resetSeconds,
      `${whose} rate limit ${left}. Try again in ${spent.resetSeconds} seconds.`,
    );
    Object.assign(error.headers, limitHeaders(policies, quotas));
    throw error;
  }

  /** The company's budgets as read within the last OVERRIDES_TTL_MS, if they were. */
  private knownQuotas(companyId: number): Config['apiLimits'] | undefined {
    const known = this.overrides.get(companyId);
    return known && Date.now() - known.readAt <= OVERRIDES_TTL_MS ? known.quotas : undefined;
  }

  private async quotas(ctx: RequestContext, companyId: number): Promise<Config['apiLimits']> {
    const [row] = await ctx.sql<{ per_token: number | null; per_company: number | null }>(
      'SELECT api_limit_per_token AS per_token, api_limit_per_company AS per_company FROM companies WHERE id = $1',
      [companyId],
    );
    const { perToken, perCompany } = this.defaults;
    const own = (base: RateWindow | null, max: number | null | undefined) =>
      max === null || max === undefined ? base : { max, windowSeconds: base?.windowSeconds ?? 60 };
    const quotas = { perToken: own(perToken, row?.per_token), perCompany: own(perCompany, row?.per_company) };
    this.overrides.set(companyId, { quotas, readAt: Date.now() });
    return quotas;
  }
}

/** A budget, its quota, and where it stands (unknown: not spent by this request, and no lease of it here). */
type Policy = [string, RateWindow, Spent | undefined];

/** The RateLimit-Policy field of each set of quotas (the same for every request of a company): made once. */
const policyFields = new WeakMap<Config['apiLimits'], string>();

/** RateLimit-Policy and RateLimit as Structured Field lists, one item per budget (`policies`, of `quotas`). */
function limitHeaders(policies: Policy[], quotas: Config['apiLimits']): LimitHeaders {
  if (policies.length === 0) return {};
  let policy = policyFields.get(quotas);
  if (policy === undefined) {
    policy = policies.map(([name, quota]) => `"${name}";q=${quota.max};w=${quota.windowSeconds}`).join(', ');
    policyFields.set(quotas, policy);
  }
  let standing = '';
  for (const [name, , spent] of policies) {
    if (spent) standing += `${standing ? ', ' : ''}"${name}";r=${spent.remaining};t=${spent.resetSeconds}`;
  }
  return { 'RateLimit-Policy': policy, RateLimit: standing };
}
