import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { ForbiddenError, UnauthenticatedError } from '../kernel/errors.js';
import { EventRecorder, type EventSink } from '../events/recorder.js';
import { databaseSpan, type TraceContext } from '../observability/tracing.js';
import type { EntityManager, StatementHost, StatementRunner } from '../db/entity-manager.js';
import { statementName } from '../db/statement-names.js';
import { oneStatementOf, PipelinedTransaction, transaction } from './transaction.js';
import type { Notice, Notifier } from '../db/notifier.js';

/** What a Bearer token says (auth/tokens.ts signs and verifies it): the user, the company, the token's id and times. */
export interface TokenClaims {
  sub: string;
  cid: number;
  jti: string;
  iat: number;
  exp: number;
}

/** Who is signed in for this request, resolved from the Bearer token once. */
export interface Viewer {
  user: { id: number; name: string; email: string };
  company: CompanyScope;
  role: { id: number; title: string; isOwner: boolean };
  permissions: ReadonlySet<string>;
  claims: TokenClaims;
}

export interface CompanyScope {
  id: number;
  name: string;
  timeZone: string;
  isAgency: boolean;
  parentId: number | null;
}

/**
 * Who acts: a user signed in with a Bearer token (permissions apply), or the
 * system acting for one company (jobs, provider callbacks, webhook delivery;
 * company scope applies, permissions do not).
 */
export type Actor =
  | { kind: 'user'; bearer: string | undefined }
  | { kind: 'system'; companyId: number; reason: string };

/** How a token becomes a viewer (a token seen lately is known without waiting), and how a company is read for a system actor. */
export interface ActorSource {
  /** The viewer of a token seen lately; `reader` gives the context of a read this may start in the background. */
  cachedViewer(token: string, reader: () => RequestContext): Viewer | undefined;
  resolveViewer(ctx: RequestContext, token: string): Promise<Viewer | undefined>;
  companyScope(ctx: RequestContext, companyId: number): Promise<CompanyScope | undefined>;
}

/** What every unit of work of one request or job shares. */
interface Caller {
  requestId: string;
  ip: string;
  actor: Actor;
  viewer?: Promise<Viewer | undefined>;
  /** The viewer, when it came from the cache of viewers: known without waiting. */
  known?: Viewer;
  company?: Promise<CompanyScope | undefined>;
  /** The request's trace, when tracing is on (observability/tracing.ts). */
  trace?: TraceContext;
}

/**
 * One per unit of work: the caller, and the connection every statement of the
 * operation goes through (its transaction's, inside a unit of work; else the
 * pool). Services take it first; it carries no services.
 */
export class RequestContext {
  /** Set by the HTTP layer: the GraphQL operations this request ran, for its log line (copied into each operation's context). */
  operations?: Array<{ operation: string | null; type: string; fields: string[] }>;
  private forked?: EntityManager;

  constructor(
    private readonly caller: Caller,
    private readonly infra: Infrastructure,
    /** Set inside a unit of work: what runs once it has committed. */
    private readonly commitHooks?: Array<() => void>,
    /** Set inside a unit of work: its transaction's connection. */
    private readonly transaction?: StatementRunner,
    /** Set inside a unit of work: the NOTIFYs sent once it has committed (`notifyAfterCommit`). */
    private readonly notices?: Notice[],
  ) {}

  /**
   * This unit of work's EntityManager, forked when first asked for: its statements run where `sql`'s do (the
   * transaction's connection, else the reading pool), and what it holds is flushed before the unit commits.
   */
  get em(): EntityManager {
    const transaction = this.transaction;
    if (transaction && !(transaction instanceof PipelinedTransaction))
      throw new Error('A unit of work of one statement has no EntityManager: its statement is its transaction.');
    return (this.forked ??= this.infra.entities(transaction ?? this.infra.reader));
  }

  /** Records domain events in this unit of work (docs/design.md §5): nothing is recorded for a rolled-back change. */
  get events(): EventRecorder<RequestContext> {
    return new EventRecorder(this, this.infra.sinks);
  }

  /** Runs fn after this unit of work commits (never for a rollback); outside one, soon. */
  afterCommit(fn: () => void): void {
    if (this.commitHooks) this.commitHooks.push(fn);
    else setImmediate(fn);
  }

  /**
   * Sends a NOTIFY once this unit of work has committed (never for a rollback), by the process's notifier: after
   * the answer, on a connection of its own, never in the unit's way (db/notifier.ts; docs/adr/0062, 0098). The same
   * notice twice in a unit goes once. Outside a unit of work it is sent at once.
   */
  notifyAfterCommit(channel: string, payload: string): void {
    if (!this.notices) return this.infra.notifier.send([[channel, payload]]);
    if (!this.notices.some(([c, p]) => c === channel && p === payload)) this.notices.push([channel, payload]);
  }

  get requestId(): string {
    return this.caller.requestId;
  }

  get ip(): string {
    return this.caller.ip;
  }

  get actor(): Actor {
    return this.caller.actor;
  }

  /** The trace the operation's spans join, when tracing is on and a request is traced. */
  get trace(): TraceContext | undefined {
    return this.caller.trace;
  }

  /** The signed-in viewer; 401 when the token is missing, invalid, expired or revoked, or when the system acts. */
  async viewer(): Promise<Viewer> {
    const { actor } = this.caller;
    if (actor.kind !== 'user') throw new UnauthenticatedError();
    if (!this.viewerNow() && !this.caller.viewer) {
      this.caller.viewer = actor.bearer
        ? this.infra.source.resolveViewer(this.readOnly(), actor.bearer)
        : Promise.resolve(undefined);
    }
    const viewer = await this.caller.viewer;
    if (!viewer) throw new UnauthenticatedError();
    return viewer;
  }

  /** The signed-in viewer when it is known without waiting (its token was seen lately), else undefined: `viewer()` then says. */
  viewerNow(): Viewer | undefined {
    const { actor } = this.caller;
    if (actor.kind !== 'user') return undefined;
    const cached =
      !this.caller.viewer && actor.bearer
        ? this.infra.source.cachedViewer(actor.bearer, () => this.readOnly())
        : undefined;
    if (cached) this.caller.viewer = Promise.resolve((this.caller.known = cached));
    return this.caller.known;
  }

  /** The company the operation acts in: the viewer's, or the one the system acts for. */
  async company(): Promise<CompanyScope> {
    const { actor } = this.caller;
    if (actor.kind === 'user') return (await this.viewer()).company;
    this.caller.company ??= this.infra.source.companyScope(this.readOnly(), actor.companyId);
    const company = await this.caller.company;
    if (!company) throw new UnauthenticatedError();
    return company;
  }

  async companyId(): Promise<number> {
    return (await this.company()).id;
  }

  /** 403 unless the signed-in user holds every named permission. The one place permissions are checked. */
  async requirePermissions(slugs: readonly string[]): Promise<Viewer> {
    const viewer = await this.viewer();
    if (slugs.some((slug) => !viewer.permissions.has(slug))) throw new ForbiddenError();
    return viewer;
  }

  /** 403 unless the signed-in user holds the company's Owner role. */
  async requireOwner(): Promise<Viewer> {
    const viewer = await this.viewer();
    if (!viewer.role.isOwner) throw new ForbiddenError();
    return viewer;
  }

  /**
   * The one way a statement reaches the database (docs/adr/0060): placeholders
   * `$1`, `$2`...; timestamps come back as Dates, civil dates and intervals
   * as PostgreSQL's text (db/reads.ts readingPool). Inside a unit of work it runs in its
   * transaction, on its connection; outside one, on the process's pool. Each
   * text is prepared once per connection. `committed`: committed on its own,
   * whatever happens to the operation (records that must outlive a rollback:
   * rate-limit counters, pending purchases at the provider).
   */
  sql<T = Record<string, unknown>>(
    text: string,
    params: unknown[] = [],
    options?: { committed?: boolean },
  ): Promise<T[]> {
    if (options?.committed) return this.ownTransaction<T>(text, params);
    return this.caller.trace
      ? databaseSpan(this.caller.trace, text, () => this.statement<T>(text, params))
      : this.statement<T>(text, params);
  }

  private async statement<T>(text: string, params: unknown[]): Promise<T[]> {
    const runner = this.transaction ?? this.infra.reader;
    return (await runner.query({ name: statementName(text), text, values: params })).rows as T[];
  }

  /**
   * A statement whose result nothing in the unit of work reads (the outbox's record of events): inside a unit of
   * work it is written with the COMMIT, in its round trip, and it failing rolls the unit back (context/transaction.ts);
   * elsewhere it runs at once.
   */
  async sqlAtCommit(text: string, params: unknown[]): Promise<void> {
    if (this.transaction instanceof PipelinedTransaction) {
      const { trace } = this.caller;
      const config = { name: statementName(text), text, values: params };
      return this.transaction.atCommit(config, trace && ((send) => databaseSpan(trace, text, send)));
    }
    await this.sql(text, params);
  }

  private async ownTransaction<T>(text: string, params: unknown[]): Promise<T[]> {
    // Its own small pool: a transaction waiting here for a connection of the
    // pool it holds one of could wait for ever under load. Prepared like the others (the pumps' wake-up after each
    // write was planned at every call).
    return (await this.infra.autonomous.query({ name: statementName(text), text, values: params })).rows as T[];
  }

  /** The same caller read anew: its viewer or company is looked up again (a live subscription's re-check after a change). */
  again(): RequestContext {
    return new RequestContext({ ...this.caller, viewer: undefined, known: undefined, company: undefined }, this.infra);
  }

  /** A context of its own for reading (one per query field), on the pool. */
  readOnly(): RequestContext {
    return new RequestContext(this.caller, this.infra);
  }

  /** The sinks' openings of a unit of work of `company` (none without a company): written with its BEGIN. */
  private openings(company: number | undefined): pg.QueryConfig[] {
    if (company === undefined) return [];
    return this.infra.sinks.flatMap(({ opening: text }) =>
      text ? [{ name: statementName(text), text, values: [company] }] : [],
    );
  }

  /** The caller's company once resolveCaller has run, without reading anything again; undefined when it has none. */
  private async knownCompanyId(): Promise<number | undefined> {
    const { actor } = this.caller;
    if (actor.kind === 'system' && actor.companyId === 0) return undefined;
    return this.company().then(
      (company) => company.id,
      () => undefined,
    );
  }

  /**
   * The answer of the opening of that text written with this unit of work's BEGIN (the transaction begun if it was
   * not); undefined outside a unit of work, in one of one statement, or where the unit has no such opening.
   */
  opening<T>(text: string): Promise<T[]> | undefined {
    if (!(this.transaction instanceof PipelinedTransaction)) return undefined;
    return this.transaction.opening(text)?.then((answer) => answer.rows as T[]);
  }

  /** Resolves who calls (never throws), so a transaction opened afterwards needs no second connection for it. */
  async resolveCaller(): Promise<void> {
    const { actor } = this.caller;
    if (actor.kind === 'system' && actor.companyId === 0) return; // maintenance spans companies
    await (actor.kind === 'user' ? this.viewer() : this.company()).catch(() => undefined);
  }

  /**
   * Runs fn in one new transaction: committed once when it resolves, rolled
   * back when it throws (called inside a unit of work, fn joins it). `lane`:
   * the pool it runs on (units of work have their own; the delivery engine's
   * claims and settles name theirs). `oneStatement`: fn runs one statement at
   * most, and throws only for what that statement did not change: the
   * statement is the transaction, run on its own (no BEGIN, no COMMIT: two
   * round trips fewer); a second statement is refused.
   */
  async unitOfWork<T>(
    fn: (ctx: RequestContext) => Promise<T>,
    { lane = 'writer', oneStatement = false }: { lane?: Lane; oneStatement?: boolean } = {},
  ): Promise<T> {
    // Inside a unit of work already (a write made once per idempotency key), it joins that one: one
    // transaction, whose end is the outer one's.
    if (this.commitHooks) return fn(this);
    // Who calls is read before the transaction takes its connection: reading it inside would need a second one.
    await this.resolveCaller();
    const hooks: Array<() => void> = [];
    const notices: Notice[] = [];
    const result = oneStatement
      ? await fn(new RequestContext(this.caller, this.infra, hooks, oneStatementOf(this.infra[lane]), notices))
      : await databaseSpan(this.caller.trace, undefined, async () =>
          transaction(
            this.infra[lane],
            async (client) => {
              const inner = new RequestContext(this.caller, this.infra, hooks, client, notices);
              const result = await fn(inner);
              await inner.forked?.flush();
              return result;
            },
            {
              openings: this.openings(await this.knownCompanyId()),
              waited: (seconds) => this.infra.poolWait?.(lane, seconds),
            },
          ),
        );
    // Once committed, the NOTIFYs it asked for (never for a rollback: fn or the commit threw before here).
    if (notices.length > 0) this.infra.notifier.send(notices);
    for (const hook of hooks) hook();
    return result;
  }
}

/** The pools a unit of work can run on. */
type Lane = 'writer' | 'reader' | 'engine';

/** What contexts are made of: the pools, the actor source. */
export interface Infrastructure {
  /** Units of work: the transactions of mutations, jobs and callbacks. */
  writer: pg.Pool;
  /** Statements that commit on their own (`committed`). */
  autonomous: pg.Pool;
  /** The NOTIFYs asked for after commits, sent on the autonomous pool (db/notifier.ts). */
  notifier: Notifier;
  /** Statements outside units of work, and the delivery engine's settles. */
  reader: pg.Pool;
  /** The delivery engine's claims and recorded results, on connections of their own (`lane: 'engine'`). */
  engine: pg.Pool;
  source: ActorSource;
  /** A fork of the entities' EntityManager on a transaction's connection or a pool (db/entity-manager.ts). */
  entities: (host: StatementHost) => EntityManager;
  /** Where recorded events go (the webhook outbox); filled when the services are built. */
  sinks: Array<EventSink<RequestContext>>;
  /** Told how long each unit of work waited for its connection (the `db_pool_wait_seconds` histogram). */
  poolWait?: (lane: Lane, seconds: number) => void;
}

/** The one factory of contexts, for every kind of caller. */
export class ContextFactory {
  constructor(private readonly infra: Infrastructure) {}

  forRequest(requestId: string, ip: string, bearer: string | undefined, trace?: TraceContext): RequestContext {
    return this.make({ requestId, ip, actor: { kind: 'user', bearer }, trace });
  }

  /** The system acting for one company (a job, a provider callback, a webhook delivery). */
  /** `scope`: the company as the caller already knows it (the call path's configuration), so it is not read again. */
  forSystem(companyId: number, reason: string, requestId: string = randomUUID(), scope?: CompanyScope): RequestContext {
    const company = scope?.id === companyId ? Promise.resolve(scope) : undefined;
    return this.make({ requestId, ip: 'system', actor: { kind: 'system', companyId, reason }, company });
  }

  /** The system with no company (maintenance jobs that span companies). */
  forMaintenance(reason: string): RequestContext {
    return this.make({ requestId: randomUUID(), ip: 'system', actor: { kind: 'system', companyId: 0, reason } });
  }

  private make(caller: Caller): RequestContext {
    return new RequestContext(caller, this.infra);
  }
}
