import type { ContextFactory } from '../../context/request-context.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { VERSION } from '../../config/version.js';
import { DeliveryClaim, type Claimed } from './claim.js';
import { resolveDestination, type DestinationPolicy } from '../config/destination.js';
import { sendAttempt } from './http-send.js';
import type { SendResult } from './attempt.js';
import type { DeliveryScheduler } from './scheduler.js';
import { OperatorEvents } from './operator-events.js';
import { Settler, succeeded } from './settle.js';
import { signAttempt } from '../config/signing.js';
import { isBrokerUrl } from '../config/broker-url.js';
import { sendToBroker } from './brokers/index.js';
import { headersToSend } from '../config/headers.js';
import { isListenUrl, type ListenSessions } from '../tools/listen.js';
import { attemptSpan } from '../../observability/tracing.js';
import { EndpointAuth } from './endpoint-auth.js';
import { DeliveryLogPartitions } from './partitions.js';
import { DueWindow, windowParams } from './due-window.js';

// Delivery (docs/design.md §5). The delivery rows are the truth: an attempt is
// claimed (and recorded) before the request, under a lease with a fencing
// token, and its result recorded after it only while that token still holds.
// A worker that dies mid-request leaves a visible attempt whose lease runs
// out; the reconciler closes it as failed and it is retried. A worker that
// was paused past its lease neither sends nor records: the attempt is no
// longer its own.

export interface DeliverySettings {
  /** Delays before attempts 2 to 5 (WEBHOOK_RETRY_DELAYS). */
  retryDelaysMs: number[];
  timeoutMs: number;
  endpointConcurrency: number;
  endpointConcurrencyMax: number;
  /** How long a success waits at most for this process's results on their way (WEBHOOK_SETTLE_HOLD_MS; 0: never). */
  settleHoldMs: number;
  disableAfterMs: number;
  retentionMs: number;
  /** Whether each webhook's record over time is kept (WEBHOOK_STATS). */
  stats: boolean;
  /** Which addresses may be reached (WEBHOOK_ALLOW_PRIVATE, and development's loopback). */
  destinations: DestinationPolicy;
}

const USER_AGENT = `Switchboard-Webhooks/${VERSION}`;
/** How long a result that cannot be written is tried again. */
const RECORD_RETRY_MS = 60_000;
/** How long after a lease ran out the reconciler closes it. */
const RECONCILE_GRACE_MS = 2000;

export class WebhookDeliverer {
  private readonly claim: DeliveryClaim;
  private readonly auth: EndpointAuth;
  private readonly settler: Settler;
  /** How long a claimed attempt is this worker's: twice the timeout, and a second. */
  readonly leaseMs: number;
  /** Deliveries this process is attempting or still recording: never the reconciler's to close. */
  private readonly recordingHere = new Set<string>();
  /** Attempts of this process being sent now (a success waits briefly for their results: settle.ts). */
  private sending = 0;
  /** The delivery log's time partitions: made ahead, dropped past the retention. */
  readonly partitions: DeliveryLogPartitions;

  constructor(
    private readonly contexts: ContextFactory,
    private readonly box: SecretBox,
    private readonly scheduler: DeliveryScheduler,
    private readonly settings: DeliverySettings,
    private readonly log: Logger,
    private readonly metrics: Metrics,
    /** npm run listen's sessions: their webhooks are delivered through them, not over HTTP. */
    private readonly listen?: ListenSessions,
  ) {
    this.leaseMs = 2 * settings.timeoutMs + 1000;
    this.auth = new EndpointAuth(box, settings.destinations);
    this.partitions = new DeliveryLogPartitions(contexts);
    const window = new DueWindow(contexts, this.partitions);
    const current = () => window.current();
    this.claim = new DeliveryClaim(
      contexts,
      { startConcurrency: settings.endpointConcurrency, leaseMs: this.leaseMs },
      current,
    );
    this.settler = new Settler(
      contexts,
      {
        startConcurrency: settings.endpointConcurrency,
        maxConcurrency: settings.endpointConcurrencyMax,
        holdMs: settings.settleHoldMs,
        fastMs: Math.min(1000, settings.timeoutMs / 4),
        retryDelaysMs: settings.retryDelaysMs,
        disableAfterMs: settings.disableAfterMs,
        stats: settings.stats,
      },
      log,
      new OperatorEvents(settings.disableAfterMs),
      async (ids) => windowParams(ids, await current()),
      () => this.sending > 0,
    );
  }

  /** Claims up to `limit` due deliveries, fairly between companies and endpoints; see DeliveryClaim.take. */
  async claimDue(limit: number): Promise<{ claimed: Claimed[]; again: boolean }> {
    const taken = await this.claim.take(limit);
    this.metrics.webhookClaims.inc({ found: taken.claimed.length > 0 ? 'yes' : 'no' });
    return taken;
  }

  /**
   * Sends a claimed attempt, records its result, and schedules the retry it
   * calls for. An attempt whose lease is nearly spent before it is sent (the
   * process was paused) is not sent: the reconciler closes it.
   */
  async complete(delivery: Claimed): Promise<void> {
    this.recordingHere.add(delivery.id);
    try {
      await this.attempt(delivery);
    } finally {
      this.recordingHere.delete(delivery.id);
    }
  }

  private async attempt(delivery: Claimed): Promise<void> {
    const number = delivery.attempt_count;
    if (Date.now() - delivery.claimedAt > this.leaseMs - this.settings.timeoutMs - 500) {
      this.log.warn('webhook attempt not sent: its lease ran out before it could be', {
        deliveryId: delivery.id,
        webhookId: delivery.webhook_id,
        attempt: number,
      });
      return;
    }
    this.sending++;
    const result = await this.send(delivery, number).finally(() => this.sending--);
    this.metrics.webhookAttempts.inc({ outcome: outcomeOf(result) });
    if (number === 1) this.metrics.firstAttemptLatency.observe((Date.now() - delivery.created_at.getTime()) / 1000);
    this.log.info('webhook attempt', {
      deliveryId: delivery.id,
      webhookId: delivery.webhook_id,
      event: delivery.event,
      attempt: number,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: result.error,
    });
    if (succeeded(result)) {
      const recorded = await this.recording(() => this.settler.success(delivery, result));
      if (!recorded) this.stale(delivery);
      return;
    }
    const next = await this.recording(() => this.settler.failure(delivery, result));
    if (next === 'stale') this.stale(delivery);
    // Agenda keeps the retry's durable timer; another worker fires it if this one dies.
    else if (next) await this.scheduler.schedule(next);
  }

  /**
   * Records a result, trying again while the database cannot be reached (a
   * restart) for up to a minute: a receiver that answered 2xx in time is not
   * sent the delivery again because the answer could not be written at once.
   * Trying past the lease is safe: the write is fenced by the lease token, so
   * it lands only if nobody closed and claimed the attempt meanwhile (and is
   * reported stale otherwise, as is a write that committed but whose reply
   * was lost).
   */
  private async recording<T>(record: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + RECORD_RETRY_MS;
    for (let wait = 100; ; wait = Math.min(wait * 2, 1000)) {
      try {
        return await record();
      } catch (error) {
        if (Date.now() + wait > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  private stale(delivery: Claimed): void {
    this.log.warn('webhook attempt result not recorded: its lease had run out and the attempt was closed', {
      deliveryId: delivery.id,
      webhookId: delivery.webhook_id,
      attempt: delivery.attempt_count,
    });
  }

  private async send(delivery: Claimed, number: number): Promise<SendResult> {
    const inGrace = (delivery.previous_secret_expires_at?.getTime() ?? 0) > Date.now();
    // The current secret (and Ed25519 key) first, then the previous one while a rotation is in grace.
    const valid = (current: string | null, previous: string | null) =>
      [current, inGrace ? previous : null].flatMap((sealed) => (sealed ? (this.box.open(sealed) ?? []) : []));
    const secrets = valid(delivery.secret_sealed, delivery.previous_secret_sealed);
    const keys = valid(delivery.signing_key_sealed, delivery.previous_signing_key_sealed);
    const signed = signAttempt({
      secrets,
      keys,
      deliveryId: delivery.id,
      event: delivery.event,
      attempt: number,
      payload: delivery.payload,
      now: new Date(),
      userAgent: USER_AGENT,
    });
    const started = performance.now();
    const headers: Record<string, string> = { ...headersToSend(delivery.headers, this.box), ...signed.headers };
    // Traced: the attempt is a span of the trace that caused the delivery, and the receiver gets its traceparent.
    const traced = {
      'webhook.delivery_id': delivery.id,
      'webhook.id': delivery.webhook_id,
      'webhook.event': delivery.event,
      'webhook.attempt': number,
    };
    return attemptSpan(delivery.trace_parent, traced, headers, async (): Promise<SendResult> => {
      try {
        if (isListenUrl(delivery.url) && this.listen)
          return await this.listen.exchange(delivery, signed.body, headers, this.settings.timeoutMs);
        const url = new URL(delivery.url_sealed ? this.box.open(delivery.url_sealed)! : delivery.url);
        const destination = await resolveDestination(url.hostname, this.settings.destinations);
        // A broker destination takes the same signed message (brokers/index.ts). The webhook's own headers first:
        // none of them can be one of ours (webhooks/config/headers.ts refuses those names).
        if (isBrokerUrl(url))
          return {
            ...(await sendToBroker(url, destination, signed.body, headers, this.settings.timeoutMs, {
              tls: this.auth.tlsOf(delivery.credentials_sealed),
            })),
            broker: true,
          };
        // With the webhook's credentials, if it has any: its client TLS, an OAuth2 token (docs/adr/0070).
        return await this.auth.send(
          sendAttempt,
          url,
          destination,
          signed.body,
          headers,
          this.settings.timeoutMs,
          delivery.credentials_sealed,
        );
      } catch (error) {
        return {
          statusCode: null,
          responseBody: null,
          error: (error as Error).message,
          durationMs: Math.round(performance.now() - started),
        };
      }
    });
  }

  /**
   * Attempts whose lease ran out (their worker died or stopped) are closed
   * as failures and retried, each only if its lease is still the one that
   * ran out. Runs at start and every few seconds; this is all it does, since
   * new deliveries reach workers by NOTIFY and retries by their jobs, with
   * the pumps' poll behind both.
   */
  async reconcile(): Promise<{ recovered: number }> {
    const maintenance = this.contexts.forMaintenance('webhook-reconcile');
    // Leases that ran out a little while ago (a worker that is still trying to record its result after a
    // database restart gets that while), and never one this process is still working on.
    const lost = await maintenance.sql<{
      id: string;
      company_id: number;
      attempt_count: number;
      final_attempt: number;
      lease_token: string;
    }>(
      `SELECT id, company_id, attempt_count, final_attempt, lease_token FROM webhook_deliveries
       WHERE lease_token IS NOT NULL AND in_flight_until < now() - make_interval(secs => $1) AND NOT (id = ANY($2::text[]))
       ORDER BY in_flight_until LIMIT 500`,
      [RECONCILE_GRACE_MS / 1000, [...this.recordingHere]],
    );
    let recovered = 0;
    for (const row of lost) {
      const next = await this.settler.failure(row, {
        statusCode: null,
        responseBody: null,
        error: 'The attempt did not finish: its worker stopped.',
        durationMs: 0,
        interrupted: true,
      });
      if (next === 'stale') continue;
      recovered++;
      if (next) await this.scheduler.schedule(next);
    }
    const [stats] = await maintenance.sql<{ due: number; oldest: number | null }>(
      // Read from the index of each webhook's due deliveries (which holds the waiting ones only).
      `SELECT count(*)::int AS due, extract(epoch from now() - min(next_attempt_at))::float AS oldest
       FROM webhook_deliveries WHERE webhook_id = ANY (ARRAY(SELECT id FROM webhooks)) AND status = 'pending'
         AND next_attempt_at IS NOT NULL AND next_attempt_at <= now()`,
    );
    this.metrics.deliveriesDue.set(stats.due);
    this.metrics.oldestDueSeconds.set(Math.max(0, stats.oldest ?? 0));
    // Session webhooks whose API process stopped saying they are alive go (their command is gone).
    await this.listen?.sweep();
    return { recovered };
  }

  /**
   * The delivery log's retention, as of `now`: its partitions made a week ahead; each partition wholly older than
   * the retention dropped, what must stay carried out of it first (partitions.ts); in the default partitions, rows
   * older than the retention deleted one by one (never a pending delivery; an event only once no delivery of it is
   * kept); and aged stats. Returns what went.
   */
  async purge(now = new Date()): Promise<{ partitions: number; deliveries: number }> {
    const cutoff = new Date(now.getTime() - this.settings.retentionMs);
    await this.partitions.prepare(now, this.settings.retentionMs);
    const dropped = await this.partitions.dropBefore(cutoff);
    const ctx = this.contexts.forMaintenance('webhook-retention');
    const rows = await ctx.sql(
      // The default partition's old deliveries, by its index of each webhook's deliveries (webhook, created_at), and
      // their attempts.
      `WITH gone AS (
         DELETE FROM webhook_deliveries_default WHERE webhook_id = ANY (ARRAY(SELECT id FROM webhooks))
            AND created_at < $1 AND status <> 'pending' RETURNING id
       ), attempts AS (DELETE FROM webhook_attempts a USING gone WHERE a.delivery_id = gone.id)
       SELECT id FROM gone`,
      [cutoff],
    );
    // Attempts carried with a delivery that finished before its own partition went (partitions.ts).
    await ctx.sql(
      'DELETE FROM webhook_attempts_default a WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id)',
    );
    // The event store keeps the same window (replay-missing reaches back no further), and an event as long as a
    // delivery of it is kept: a delivery is found by its event's subjects.
    await ctx.sql(
      'DELETE FROM events_default e WHERE e.occurred_at < $1 ' +
        'AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)',
      [cutoff],
    );
    // The record over time keeps its minutes a day and an hour, its quarter hours 91 days (stats.ts).
    await ctx.sql(
      `DELETE FROM webhook_stats WHERE (span = 60 AND bucket < now() - interval '25 hours')
           OR (span = 900 AND bucket < now() - interval '91 days')`,
    );
    return { partitions: dropped.length, deliveries: rows.length };
  }
}

function outcomeOf(result: SendResult): string {
  if (succeeded(result)) return 'success';
  if (result.statusCode === null) return result.error?.startsWith('refused destination') ? 'refused' : 'error';
  return `http_${Math.floor(result.statusCode / 100)}xx`;
}
