import type { ContextFactory } from '../../context/request-context.js';
import { dbDate } from '../../db/reads.js';
import { LOCKS } from '../../db/locks.js';
import type { StoredHeader } from '../config/headers.js';

// The claim (docs/design.md §5; docs/adr/0020-webhooks.md): due
// deliveries of many endpoints taken in one transaction of two statements.
//
// 1. The endpoints with due work and room are taken, each under a
//    transaction-scoped advisory lock tried without waiting: one worker
//    claims for an endpoint at a time, and another skips it (the one holding
//    it claims again at once if work arrived meanwhile). The webhook rows are
//    not locked here, so neither a write that causes an event (its delivery
//    rows take key-share locks on their webhook) nor a recorded result (which
//    updates the webhook's concurrency) ever waits for a claim or makes one
//    skip an endpoint.
// 2. On a fresh snapshot (so attempts another worker claimed just before
//    are counted), each endpoint gets at most its free slots (its adaptive
//    concurrency less its attempts in flight) and its rate limit's tokens;
//    the picks are taken in turns between companies, and within a company
//    between its endpoints, oldest due first, up to the batch size. Each
//    pick gets a lease (in_flight_until) and a fencing token from one
//    sequence, and its attempt is recorded before any request is made.

export interface Claimed {
  id: string;
  webhook_id: number;
  company_id: number;
  event: string;
  payload: string;
  attempt_count: number;
  final_attempt: number;
  lease_token: string;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  /** The webhook's custom headers, as stored (webhooks/headers.ts). */
  headers: StoredHeader[];
  created_at: Date;
  /** The traceparent of the request that caused the delivery, when tracing was on. */
  trace_parent: string | null;
  /** When this process began the claim (its own clock): the lease runs out at the latest leaseMs after it. */
  claimedAt: number;
}

export interface ClaimSettings {
  /** The concurrency an endpoint starts at (WEBHOOK_ENDPOINT_CONCURRENCY). */
  startConcurrency: number;
  leaseMs: number;
}

/**
 * What an endpoint's rate limit allows now: its bucket (`c`, its webhook_counters row, if any) refilled since
 * the last check, at most one second's worth.
 */
const RATE_BUCKET =
  `least(w.rate_limit, coalesce(c.rate_tokens, w.rate_limit) + extract(epoch from now() - ` +
  `coalesce(c.rate_checked_at, now())) * w.rate_limit)`;

// Endpoints at their limit (as this statement's snapshot sees them) are not taken: the second statement,
// which counts on a fresh snapshot, is the judge; this only spares claiming for what has nothing to give.
// The lock is tried last, on the endpoints that pass every other test (OFFSET 0 keeps the planner from
// moving it into the scan); an endpoint another worker holds is reported, so this one looks again soon.
const LOCK_ENDPOINTS = `
  SELECT id, pg_try_advisory_xact_lock(${LOCKS.deliveryClaim}, candidates.id) AS mine FROM (
    SELECT w.id FROM webhooks w LEFT JOIN webhook_counters c ON c.webhook_id = w.id
    WHERE w.active AND (w.paused_until IS NULL OR w.paused_until <= now())
      AND (w.rate_limit IS NULL OR ${RATE_BUCKET} >= 1)
      AND coalesce(w.concurrency, $1) > (SELECT count(*) FROM webhook_deliveries f WHERE f.webhook_id = w.id AND f.lease_token IS NOT NULL)
      AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= now())
    ORDER BY w.id OFFSET 0
  ) candidates`;

const CLAIM = `
  WITH endpoints AS (
    SELECT w.id, w.company_id, greatest(0, least(
      coalesce(w.concurrency, $2) - (SELECT count(*) FROM webhook_deliveries f WHERE f.webhook_id = w.id AND f.lease_token IS NOT NULL),
      CASE WHEN w.rate_limit IS NULL THEN $3 ELSE floor(${RATE_BUCKET}) END
    ))::int AS free
    FROM webhooks w LEFT JOIN webhook_counters c ON c.webhook_id = w.id WHERE w.id = ANY($1::int[])
  ), picks AS (
    SELECT p.id, e.company_id, p.next_attempt_at, p.place
    FROM endpoints e CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at, row_number() OVER (ORDER BY d.next_attempt_at, d.id) AS place
      FROM webhook_deliveries d
      WHERE d.webhook_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= now()
      ORDER BY d.next_attempt_at, d.id LIMIT e.free
    ) p
  ), turns AS (
    SELECT id, next_attempt_at, row_number() OVER (PARTITION BY company_id ORDER BY place, next_attempt_at, id) AS turn FROM picks
  ), chosen AS (
    SELECT id FROM turns ORDER BY turn, next_attempt_at, id LIMIT $3
  ), claimed AS (
    UPDATE webhook_deliveries d SET attempt_count = d.attempt_count + 1, next_attempt_at = NULL, last_attempt_at = now(),
      next_trigger = 'scheduled', in_flight_until = now() + make_interval(secs => $4), lease_token = nextval('webhook_lease_seq')
    FROM chosen WHERE d.id = chosen.id AND d.status = 'pending' AND d.next_attempt_at <= now()
    RETURNING d.id, d.webhook_id, d.company_id, d.event, d.payload, d.attempt_count, d.final_attempt, d.lease_token, d.created_at, d.trace_parent
  ), attempts AS (
    -- The statement's snapshot still holds each delivery as it was before the claim: its trigger and due time.
    INSERT INTO webhook_attempts (delivery_id, number, trigger, attempted_at, due_at, header_names)
    SELECT c.id, c.attempt_count, before.next_trigger, now(), before.next_attempt_at,
      (SELECT jsonb_agg(h->>'name') FROM jsonb_array_elements(w.headers) h)
    FROM claimed c JOIN webhook_deliveries before ON before.id = c.id JOIN webhooks w ON w.id = c.webhook_id
  ), hits AS (
    -- The counters live apart from the webhook row (its filters and headers make it wide): a narrow row's update stays on its page.
    INSERT INTO webhook_counters AS c (webhook_id, hits, last_hit, rate_tokens, rate_checked_at)
    SELECT n.webhook_id, n.count, now(), CASE WHEN w.rate_limit IS NULL THEN NULL ELSE w.rate_limit - n.count
      END, CASE WHEN w.rate_limit IS NULL THEN NULL ELSE now() END
    FROM (SELECT webhook_id, count(*)::int AS count FROM claimed GROUP BY webhook_id) n JOIN webhooks w ON w.id = n.webhook_id
    ON CONFLICT (webhook_id) DO UPDATE SET hits = c.hits + excluded.hits, last_hit = now(),
      rate_tokens = CASE WHEN excluded.rate_tokens IS NULL THEN NULL ELSE (SELECT ${RATE_BUCKET} FROM webhooks w WHERE w.id = c.webhook_id) - excluded.hits END,
      rate_checked_at = excluded.rate_checked_at
  )
  SELECT c.id, c.webhook_id, c.company_id, c.event, c.payload, c.attempt_count, c.final_attempt, c.lease_token, c.created_at, c.trace_parent,
    w.url, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at, w.headers
  FROM claimed c JOIN webhooks w ON w.id = c.webhook_id`;

export class DeliveryClaim {
  constructor(
    private readonly contexts: ContextFactory,
    private readonly settings: ClaimSettings,
  ) {}

  /**
   * Claims up to `limit` due deliveries, fairly between companies and
   * endpoints. `elsewhere`: some endpoint with work
   * was being claimed by another worker, so a claim soon may find more.
   */
  async take(limit: number): Promise<{ claimed: Claimed[]; elsewhere: boolean }> {
    if (limit <= 0) return { claimed: [], elsewhere: false };
    // The lease starts when the claim statement runs, never before this moment: judged from it, by this
    // process's clock alone, a lease is never taken for longer than it is.
    const claimedAt = Date.now();
    let elsewhere = false;
    const rows = await this.contexts.forMaintenance('webhook-claim').unitOfWork(
      async (ctx) => {
        const candidates = await ctx.sql<{ id: number; mine: boolean }>(LOCK_ENDPOINTS, [
          this.settings.startConcurrency,
        ]);
        const endpoints = candidates.filter((c) => c.mine);
        elsewhere = endpoints.length < candidates.length;
        if (endpoints.length === 0) return [];
        return ctx.sql<Omit<Claimed, 'claimedAt'>>(CLAIM, [
          endpoints.map((e) => e.id),
          this.settings.startConcurrency,
          limit,
          this.settings.leaseMs / 1000,
        ]);
      },
      { lane: 'claims' },
    );
    const claimed = rows.map((row) => ({
      ...row,
      lease_token: String(row.lease_token),
      created_at: dbDate(row.created_at)!,
      previous_secret_expires_at: dbDate(row.previous_secret_expires_at),
      claimedAt,
    }));
    return { claimed, elsewhere };
  }
}
