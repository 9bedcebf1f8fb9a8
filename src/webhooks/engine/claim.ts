import type { ContextFactory } from '../../context/request-context.js';
import type { StoredHeader } from '../config/headers.js';
import type { IdWindow } from './due-window.js';

// The claim (docs/design.md §5; docs/adr/0020-webhooks.md,
// docs/adr/0061-delivery-costs.md): due deliveries of many endpoints taken in
// one statement, which commits on its own.
//
// - An endpoint is claimed for by one worker at a time: its counters row
//   (webhook_counters) is locked for the statement, and a worker finding it
//   locked skips it (SKIP LOCKED) and claims again shortly (`again`): a
//   wake-up is answered by one pump only (wake-targets.ts), so work that
//   arrived while another claim held the endpoint would otherwise wait for a
//   poll (a settle holds the row for its statement too). The webhook rows
//   are not locked, so no change of a webhook row (a failing clock, a grown
//   concurrency) ever makes a claim skip an endpoint.
// - The counters row holds the endpoint's attempts in flight, raised here
//   and lowered by the statement that closes each lease, fenced like it
//   (settle.ts). The locked row is its latest version, so attempts another
//   worker claimed just before are counted; a delivery that worker took
//   after this statement's snapshot fails the claim's re-check and is left.
// - Each endpoint gets at most its free slots (its adaptive concurrency less
//   its attempts in flight) and its rate limit's tokens; the picks are taken
//   in turns between companies, and within a company between its endpoints,
//   oldest due first, up to the batch size. Each pick gets a lease
//   (in_flight_until) and a fencing token from one sequence, and its attempt
//   is recorded before any request is made.
// - The picks are locked as they are taken, skipping a row another
//   statement holds (a settle, a cancel): the claim holds its endpoints'
//   counters rows, which a settle takes after its delivery rows, so a claim
//   that waited on a delivery row could close a cycle with that settle.
// - The plan is generic (made once per connection, again after the tables
//   are analysed), so its shape must not rest on row estimates: each
//   endpoint's due work is probed by its index (a scalar subquery, never a
//   scan of every due delivery), and the picks are updated by their ids.
// - A webhook made without its counters row (by SQL from outside the
//   service) gets one here, and is claimed for from the next claim on.
// - Every read and write of the deliveries is bounded by the due window
//   ($4, $5: due-window.ts), so the partitions without work are left out
//   before the statement starts.

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
  /** The whole URL, sealed, when it carries a password (a broker's). */
  url_sealed: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  /** Set when the webhook signs with Ed25519 (v1a): its key, and the previous one while a rotation is in grace. */
  signing_key_sealed: string | null;
  previous_signing_key_sealed: string | null;
  /** The webhook's custom headers, as stored (webhooks/config/headers.ts). */
  headers: StoredHeader[];
  /** OAuth2 client credentials and client TLS, sealed (webhooks/config/credentials.ts). */
  credentials_sealed: string | null;
  created_at: Date;
  /** The traceparent of the request that caused the delivery, when tracing was on. */
  trace_parent: string | null;
  /** Whether its webhook delivers it in its subject's order (the subject's next delivery waits for its result). */
  ordered: boolean;
  /** When this process began the claim (its own clock): the lease runs out at the latest leaseMs after it. */
  claimedAt: number;
}

/**
 * The settings of the engine's connections (claims and recorded results): its statements are of fixed text,
 * prepared once per connection with a generic plan, and read rows by their indexes whatever the tables'
 * statistics said when they were planned (no sequential scans; docs/adr/0061-delivery-costs.md).
 */
export const ENGINE_SESSION = '-c plan_cache_mode=force_generic_plan -c enable_seqscan=off';

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

/**
 * Whether the endpoint `webhook` (an SQL expression) has a delivery due now, among the ids from `from` to `to` (SQL
 * expressions: the due window, due-window.ts). Ordered by the due time, so that its due index (partial: pending
 * deliveries only) is the one plan without a sort, whatever the statistics said when the statement was planned: the
 * index by creation time, which also leads with the webhook, would walk every delivery the endpoint ever had in the
 * partition before its first pending one.
 */
export const hasDueWork = (webhook: string, from: string, to: string) => dueProbe(webhook, 'true', from, to);

/** When the endpoint's longest-waiting due delivery became due (null when none is), read as `hasDueWork` reads. */
export const oldestDue = (webhook: string, from: string, to: string) =>
  dueProbe(webhook, 'd.next_attempt_at', from, to);

/** Ids in the due window: bounds of the partitioning key given as parameters, so that the other partitions are left out. */
export const inWindow = (id: string, from: string, to: string) => `${id} >= ${from} AND ${id} < ${to}`;

const dueProbe = (webhook: string, value: string, from: string, to: string) =>
  `(SELECT ${value} FROM webhook_deliveries d WHERE d.webhook_id = ${webhook} AND d.status = 'pending' ` +
  `AND d.next_attempt_at <= now() AND ${inWindow('d.id', from, to)} ORDER BY d.next_attempt_at LIMIT 1)`;

export const CLAIM = `
  WITH eligible AS (
    -- Endpoints at their limit (as the snapshot sees them) are passed over here; the locked row is the judge.
    SELECT w.id, c.webhook_id AS counted FROM webhooks w LEFT JOIN webhook_counters c ON c.webhook_id = w.id
    WHERE w.active AND (w.paused_until IS NULL OR w.paused_until <= now())
      AND (w.rate_limit IS NULL OR ${RATE_BUCKET} >= 1)
      AND coalesce(w.concurrency, $1) > coalesce(c.in_flight, 0)
      AND ${hasDueWork('w.id', '$4::text', '$5::text')}
  ), counted AS (
    INSERT INTO webhook_counters (webhook_id) SELECT id FROM eligible WHERE counted IS NULL ON CONFLICT DO NOTHING
  ), locked AS (
    SELECT c.webhook_id, c.in_flight, c.rate_tokens, c.rate_checked_at FROM webhook_counters c
    WHERE c.webhook_id IN (SELECT counted FROM eligible) ORDER BY c.webhook_id FOR NO KEY UPDATE SKIP LOCKED
  ), endpoints AS (
    SELECT w.id, w.company_id, greatest(0, least(
      coalesce(w.concurrency, $1) - c.in_flight,
      CASE WHEN w.rate_limit IS NULL THEN $2 ELSE floor(${RATE_BUCKET}) END
    ))::int AS free
    FROM locked c JOIN webhooks w ON w.id = c.webhook_id
  ), picks AS (
    SELECT p.id, p.webhook_id, p.attempt_count, e.company_id, p.next_attempt_at, p.next_trigger,
      row_number() OVER (PARTITION BY e.id ORDER BY p.next_attempt_at, p.id) AS place
    FROM endpoints e CROSS JOIN LATERAL (
      SELECT d.id, d.webhook_id, d.attempt_count, d.next_attempt_at, d.next_trigger FROM webhook_deliveries d
      WHERE d.webhook_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= now() AND ${inWindow('d.id', '$4::text', '$5::text')}
        -- Ordered per subject: a delivery waits while an older one of its subject is pending (in flight or to retry).
        AND (d.order_key IS NULL OR NOT EXISTS (SELECT 1 FROM webhook_deliveries o WHERE o.webhook_id = d.webhook_id
          AND o.order_key = d.order_key AND o.status = 'pending' AND (o.created_at, o.id) < (d.created_at, d.id)
          AND ${inWindow('o.id', '$4::text', '$5::text')}))
      ORDER BY d.next_attempt_at, d.id LIMIT e.free FOR NO KEY UPDATE SKIP LOCKED
    ) p
  ), turns AS (
    SELECT id, webhook_id, attempt_count, next_attempt_at, next_trigger,
      row_number() OVER (PARTITION BY company_id ORDER BY place, next_attempt_at, id) AS turn FROM picks
  ), chosen AS (
    SELECT id, webhook_id, attempt_count, next_attempt_at, next_trigger FROM turns ORDER BY turn, next_attempt_at, id LIMIT $2
  ), claimed AS (
    UPDATE webhook_deliveries d SET attempt_count = d.attempt_count + 1, next_attempt_at = NULL, last_attempt_at = now(),
      next_trigger = 'scheduled', in_flight_until = now() + make_interval(secs => $3), lease_token = nextval('webhook_lease_seq')
    -- The re-check is written so that no index can serve it: the picks are found by their ids, never by a walk of
    -- every due delivery (the due index would be, under a backlog).
    WHERE d.id = ANY (ARRAY(SELECT id FROM chosen)) AND ${inWindow('d.id', '$4::text', '$5::text')} AND d.status = 'pending'
      AND coalesce(d.next_attempt_at <= now(), false)
    RETURNING d.id, d.webhook_id, d.company_id, d.event, d.payload, d.attempt_count, d.final_attempt, d.lease_token, d.created_at, d.trace_parent,
      d.order_key IS NOT NULL AS ordered
  ), attempts AS (
    -- Each claimed delivery as its pick read it before the claim (its trigger and due time), not read again.
    INSERT INTO webhook_attempts (delivery_id, number, trigger, attempted_at, due_at, header_names)
    SELECT ch.id, ch.attempt_count + 1, ch.next_trigger, now(), ch.next_attempt_at,
      (SELECT jsonb_agg(h->>'name') FROM jsonb_array_elements(w.headers) h)
    FROM chosen ch JOIN webhooks w ON w.id = ch.webhook_id WHERE ch.id = ANY (ARRAY(SELECT id FROM claimed))
  ), hits AS (
    -- The counters live apart from the webhook row (its filters and headers make it wide): a narrow row's update stays on its page.
    UPDATE webhook_counters c SET hits = c.hits + n.count, last_hit = now(), in_flight = c.in_flight + n.count,
      rate_tokens = CASE WHEN w.rate_limit IS NULL THEN NULL ELSE ${RATE_BUCKET} - n.count END,
      rate_checked_at = CASE WHEN w.rate_limit IS NULL THEN NULL ELSE now() END
    FROM (SELECT webhook_id, count(*)::int AS count FROM claimed GROUP BY webhook_id) n JOIN webhooks w ON w.id = n.webhook_id
    WHERE c.webhook_id = n.webhook_id
  )
  SELECT c.id, c.webhook_id, c.company_id, c.event, c.payload, c.attempt_count, c.final_attempt, c.lease_token, c.created_at, c.trace_parent, c.ordered,
    w.url, w.url_sealed, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at, w.signing_key_sealed,
    w.previous_signing_key_sealed, w.headers, w.credentials_sealed, NULL::bool AS again
  FROM claimed c JOIN webhooks w ON w.id = c.webhook_id
  UNION ALL
  -- Endpoints with work that got their counters row just now (claimed from the next claim on), or that another
  -- statement held (skipped): claimed again shortly.
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    EXISTS (SELECT 1 FROM eligible WHERE counted IS NULL)
      OR EXISTS (SELECT 1 FROM eligible e WHERE e.counted IS NOT NULL AND NOT EXISTS (SELECT 1 FROM locked l WHERE l.webhook_id = e.counted))`;

export class DeliveryClaim {
  constructor(
    private readonly contexts: ContextFactory,
    private readonly settings: ClaimSettings,
    /** The span of ids where work can be due (due-window.ts). */
    private readonly window: () => Promise<IdWindow>,
  ) {}

  /**
   * Claims up to `limit` due deliveries, fairly between companies and
   * endpoints. `again`: an endpoint with work got its counters row just
   * now, or was held by another statement: the next claim can take its work.
   */
  async take(limit: number): Promise<{ claimed: Claimed[]; again: boolean }> {
    if (limit <= 0) return { claimed: [], again: false };
    const window = await this.window();
    // The lease starts when the claim statement runs, never before this moment: judged from it, by this
    // process's clock alone, a lease is never taken for longer than it is.
    const claimedAt = Date.now();
    const rows = await this.contexts
      .forMaintenance('webhook-claim')
      .unitOfWork(
        (ctx) =>
          ctx.sql<Omit<Claimed, 'claimedAt'> & { again: boolean | null }>(CLAIM, [
            this.settings.startConcurrency,
            limit,
            this.settings.leaseMs / 1000,
            window.from,
            window.to,
          ]),
        { lane: 'engine', oneStatement: true },
      );
    const again = rows.some((row) => row.again === true);
    const claimed = rows.flatMap(({ again: _, ...row }) =>
      row.id === null
        ? []
        : [
            {
              ...row,
              lease_token: String(row.lease_token),
              claimedAt,
            },
          ],
    );
    return { claimed, again };
  }
}
