import type { ContextFactory, RequestContext } from '../context.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { dbDate } from '../db/dates.js';
import { VERSION } from '../version.js';
import { resolveDestination } from './destination.js';
import { sendAttempt, type SendResult } from './http-send.js';
import type { DeliveryScheduler } from './scheduler.js';
import { signAttempt } from './signing.js';

// Delivery (DESIGN section 5). The delivery rows are the truth: an attempt is
// claimed (and recorded) in one transaction before the request, and its
// result recorded in another after it, so a worker that dies mid-request
// leaves a visible attempt that the reconciler closes and retries. The claim
// is the boundary: a job run twice, or by two workers, finds the attempt
// already taken and sends nothing.

export interface DeliverySettings {
  /** Delays before attempts 2 to 5 (WEBHOOK_RETRY_DELAYS). */
  retryDelaysMs: number[];
  timeoutMs: number;
  endpointConcurrency: number;
  disableAfterMs: number;
  retentionMs: number;
  allowPrivate: boolean;
}

/** Attempts in one schedule: the first and one per retry delay. */
export const ATTEMPTS_PER_SCHEDULE = 5;

/**
 * The retry policy as one function: how long after attempt `n - 1` failed
 * attempt `n` of a schedule is due (n from 2 to 5).
 */
export const makeBackoff = (delaysMs: readonly number[]) => (attempt: number): number => delaysMs[Math.min(Math.max(attempt - 2, 0), delaysMs.length - 1)];

export interface Claimed {
  id: string;
  webhook_id: number;
  company_id: number;
  event: string;
  payload: string;
  attempt_count: number;
  final_attempt: number;
  next_trigger: string;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
}

const USER_AGENT = `Switchboard-Webhooks/${VERSION}`;

export class WebhookDeliverer {
  readonly backoff: (attempt: number) => number;

  constructor(
    private readonly contexts: ContextFactory,
    private readonly box: SecretBox,
    private readonly scheduler: DeliveryScheduler,
    private readonly settings: DeliverySettings,
    private readonly log: Logger,
    private readonly metrics: Metrics,
  ) {
    this.backoff = makeBackoff(settings.retryDelaysMs);
  }

  /** How long an attempt may stay unrecorded before it is presumed lost with its worker: twice the timeout, and a second. */
  inFlightLimitMs(): number {
    return 2 * this.settings.timeoutMs + 1000;
  }

  /** One attempt of one delivery, if it is due and its endpoint has a free slot; what a retry job runs. */
  async run(deliveryId: string): Promise<void> {
    const [claimed] = await this.claimDue(1, deliveryId);
    if (claimed) await this.complete(claimed);
  }

  /**
   * Claims up to `limit` due deliveries (or the one named), oldest due
   * first, never more per webhook than its free slots of
   * WEBHOOK_ENDPOINT_CONCURRENCY: each claimed attempt is recorded (number,
   * trigger, time, the webhook's hit) in the same transaction, before any
   * request is made. Rows another worker is claiming are skipped.
   */
  async claimDue(limit: number, onlyId?: string): Promise<Claimed[]> {
    if (limit <= 0) return [];
    // The due rows nobody else is claiming, at most the free slots of each webhook, each attempt
    // recorded and each webhook's hits counted, in one statement.
    const rows = await this.contexts.forMaintenance('webhook-delivery').unitOfWork(async (ctx) => {
      // Slots are counted under the webhooks' row locks (taken in id order, waiting briefly rather than
      // skipping), so two workers never overfill one endpoint; the delivery rows themselves are skipped
      // when another worker holds them.
      await ctx.sql(
        `SELECT id FROM webhooks WHERE id IN (
           SELECT DISTINCT webhook_id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now() ${onlyId ? 'AND id = ?' : ''}
         ) ORDER BY id FOR UPDATE`,
        onlyId ? [onlyId] : [],
      );
      return ctx.sql<Claimed>(
      `WITH candidates AS (
         SELECT d.id, d.webhook_id, d.next_attempt_at FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND w.active ${onlyId ? 'AND d.id = ?' : ''}
         ORDER BY d.next_attempt_at, d.id LIMIT ? FOR UPDATE OF d SKIP LOCKED
       ), ranked AS (
         SELECT c.id, c.webhook_id, c.next_attempt_at,
                row_number() OVER (PARTITION BY c.webhook_id ORDER BY c.next_attempt_at, c.id) AS place,
                (SELECT count(*) FROM webhook_deliveries f WHERE f.webhook_id = c.webhook_id AND f.in_flight_until > now()) AS busy
         FROM candidates c
       ), chosen AS (
         SELECT id, webhook_id FROM ranked WHERE place + busy <= ? ORDER BY next_attempt_at, id LIMIT ?
       ), attempts AS (
         INSERT INTO webhook_attempts (delivery_id, number, trigger, attempted_at, due_at)
         SELECT d.id, d.attempt_count + 1, d.next_trigger, now(), d.next_attempt_at FROM webhook_deliveries d JOIN chosen ON chosen.id = d.id
       ), hits AS (
         UPDATE webhooks w SET hits = w.hits + n.count, last_hit = now()
         FROM (SELECT webhook_id, count(*)::int AS count FROM chosen GROUP BY webhook_id) n WHERE w.id = n.webhook_id
       ), claimed AS (
         UPDATE webhook_deliveries d SET attempt_count = d.attempt_count + 1, next_attempt_at = NULL, last_attempt_at = now(),
           next_trigger = 'scheduled', in_flight_until = now() + make_interval(secs => ?)
         FROM chosen WHERE d.id = chosen.id
         RETURNING d.id, d.webhook_id, d.company_id, d.event, d.payload, d.attempt_count, d.final_attempt, d.created_at
       )
       SELECT c.*, w.url, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at
       FROM claimed c JOIN webhooks w ON w.id = c.webhook_id`,
      [...(onlyId ? [onlyId] : []), limit * 4, this.settings.endpointConcurrency, limit, this.inFlightLimitMs() / 1000],
      );
    });
    return rows.map((row) => ({ ...row, created_at: dbDate(row.created_at), previous_secret_expires_at: dbDate(row.previous_secret_expires_at) }));
  }

  /** Sends a claimed attempt, records its result, and schedules the retry it calls for. */
  async complete(delivery: Claimed): Promise<void> {
    const number = delivery.attempt_count;
    const result = await this.send(delivery, number);
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
    const ctx = this.contexts.forSystem(delivery.company_id, 'webhook-delivery');
    const next = succeeded(result) ? await this.settleSuccess(ctx, delivery.id, number, result) : await ctx.unitOfWork((uow) => this.settle(uow, delivery.id, number, result));
    if (next) {
      // Agenda keeps the durable timer (another worker fires it if this one dies); this
      // process's pump also wakes at the due time itself, to the millisecond.
      this.scheduler.wakeAt(next);
      await this.scheduler.schedule(delivery.id, next);
    }
  }

  private async send(delivery: Claimed, number: number): Promise<SendResult> {
    const secrets = [this.box.open(delivery.secret_sealed)!];
    if (delivery.previous_secret_sealed && delivery.previous_secret_expires_at && delivery.previous_secret_expires_at.getTime() > Date.now()) {
      const previous = this.box.open(delivery.previous_secret_sealed);
      if (previous) secrets.push(previous);
    }
    const signed = signAttempt({ secrets, deliveryId: delivery.id, event: delivery.event, attempt: number, payload: delivery.payload, now: new Date(), userAgent: USER_AGENT });
    const started = performance.now();
    let url: URL;
    try {
      url = new URL(delivery.url);
      const destination = await resolveDestination(url.hostname, this.settings.allowPrivate);
      return await sendAttempt(url, destination, signed.body, signed.headers, this.settings.timeoutMs);
    } catch (error) {
      return { statusCode: null, responseBody: null, error: (error as Error).message, durationMs: Math.round(performance.now() - started) };
    }
  }

  /**
   * Records an attempt's result and moves the delivery on: succeeded; the
   * next attempt due after the backoff; failed after the last attempt of its
   * schedule. A 410 switches the webhook off and cancels its other pending
   * deliveries; a webhook failing for WEBHOOK_DISABLE_AFTER is switched off.
   * Returns when the next attempt is due, if there is one.
   */
  /** A success, recorded in one statement (the common case, so the cheap one). */
  private async settleSuccess(ctx: RequestContext, deliveryId: string, number: number, result: SendResult): Promise<undefined> {
    await ctx.sql(
      `WITH attempt AS (
         UPDATE webhook_attempts SET finished_at = now(), status_code = ?, duration_ms = ?, response_body = ?, error = NULL WHERE delivery_id = ? AND number = ?
       ), delivery AS (
         UPDATE webhook_deliveries SET status = 'succeeded', last_status_code = ?, in_flight_until = NULL WHERE id = ? RETURNING webhook_id
       )
       UPDATE webhooks SET failing_since = NULL FROM delivery WHERE webhooks.id = delivery.webhook_id AND webhooks.failing_since IS NOT NULL`,
      [result.statusCode, result.durationMs, result.responseBody, deliveryId, number, result.statusCode, deliveryId],
    );
    return undefined;
  }

  private async settle(ctx: RequestContext, deliveryId: string, number: number, result: SendResult): Promise<Date | undefined> {
    await ctx.sql(
      'UPDATE webhook_attempts SET finished_at = now(), status_code = ?, duration_ms = ?, response_body = ?, error = ? WHERE delivery_id = ? AND number = ?',
      [result.statusCode, result.durationMs, result.responseBody, result.error, deliveryId, number],
    );
    const [delivery] = await ctx.sql<{ webhook_id: number; final_attempt: number; status: string }>(
      'SELECT webhook_id, final_attempt, status FROM webhook_deliveries WHERE id = ? FOR UPDATE',
      [deliveryId],
    );
    if (!delivery) return undefined;
    if (result.statusCode === 410) {
      await ctx.sql(`UPDATE webhook_deliveries SET status = 'failed', last_status_code = 410, in_flight_until = NULL WHERE id = ?`, [deliveryId]);
      await this.switchOff(ctx, delivery.webhook_id, 'gone');
      return undefined;
    }
    const last = number >= delivery.final_attempt || delivery.status !== 'pending';
    const attemptInSchedule = ATTEMPTS_PER_SCHEDULE - (delivery.final_attempt - number) + 1;
    const due = last ? null : new Date(Date.now() + this.backoff(attemptInSchedule));
    await ctx.sql(
      `UPDATE webhook_deliveries SET status = CASE WHEN status = 'pending' AND ? THEN 'failed' ELSE status END,
         next_attempt_at = CASE WHEN status = 'pending' THEN ?::timestamptz ELSE NULL END, last_status_code = ?, in_flight_until = NULL WHERE id = ?`,
      [last, due, result.statusCode, deliveryId],
    );
    const [webhook] = await ctx.sql<{ failing_since: Date }>(
      `UPDATE webhooks SET failing_since = now() WHERE id = ? AND failing_since IS NULL RETURNING failing_since`,
      [delivery.webhook_id],
    ).then(async (set) => (set.length ? set : ctx.sql<{ failing_since: Date }>('SELECT failing_since FROM webhooks WHERE id = ?', [delivery.webhook_id])));
    if (webhook && Date.now() - dbDate(webhook.failing_since).getTime() >= this.settings.disableAfterMs) {
      await this.switchOff(ctx, delivery.webhook_id, 'failing');
      return undefined;
    }
    return due ?? undefined;
  }

  private async switchOff(ctx: RequestContext, webhookId: number, reason: 'gone' | 'failing'): Promise<void> {
    await ctx.sql('UPDATE webhooks SET active = false, disabled_reason = ?, updated_at = now() WHERE id = ?', [reason, webhookId]);
    await ctx.sql(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending' AND in_flight_until IS NULL`, [webhookId]);
    this.log.warn('webhook switched off', { webhookId, reason });
  }

  /**
   * What the rows say must happen, made to happen: attempts whose worker died
   * are closed as failures (and retried), and every delivery due soon gets
   * its job (creating it is idempotent). Runs at start and every few seconds.
   */
  async reconcile(): Promise<{ recovered: number; scheduled: number }> {
    const maintenance = this.contexts.forMaintenance('webhook-reconcile');
    const lost = await maintenance.sql<{ id: string; company_id: number; attempt_count: number }>(
      `SELECT id, company_id, attempt_count FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at IS NULL AND in_flight_until < now() ORDER BY in_flight_until LIMIT 500`,
    );
    let recovered = 0;
    for (const row of lost) {
      const next = await this.contexts.forSystem(row.company_id, 'webhook-reconcile').unitOfWork(async (ctx) => {
        // Only if nobody settled it meanwhile.
        const [still] = await ctx.sql('SELECT 1 FROM webhook_deliveries WHERE id = ? AND next_attempt_at IS NULL AND in_flight_until < now() FOR UPDATE SKIP LOCKED', [row.id]);
        if (!still) return undefined;
        recovered++;
        return this.settle(ctx, row.id, row.attempt_count, { statusCode: null, responseBody: null, error: 'The attempt did not finish: its worker stopped.', durationMs: 0 });
      });
      if (next) await this.scheduler.schedule(row.id, next);
    }
    // Retries due soon get their timer (idempotent); what is due now the pumps take without one.
    const due = await maintenance.sql<{ id: string; next_attempt_at: Date }>(
      `SELECT id, next_attempt_at FROM (
         SELECT id, next_attempt_at, row_number() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at, id) AS place
         FROM webhook_deliveries WHERE status = 'pending' AND attempt_count > 0 AND next_attempt_at > now() AND next_attempt_at < now() + interval '10 seconds'
       ) due WHERE place <= ? ORDER BY next_attempt_at LIMIT 2000`,
      [this.settings.endpointConcurrency],
    );
    for (const row of due) await this.scheduler.schedule(row.id, dbDate(row.next_attempt_at));
    this.scheduler.kick();
    const [stats] = await maintenance.sql<{ due: number; oldest: number | null }>(
      `SELECT count(*)::int AS due, extract(epoch from now() - min(next_attempt_at))::float AS oldest
       FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()`,
    );
    this.metrics.deliveriesDue.set(stats.due);
    this.metrics.oldestDueSeconds.set(Math.max(0, stats.oldest ?? 0));
    return { recovered, scheduled: due.length };
  }

  /** Deletes deliveries (and their attempts) older than the retention. */
  async purge(): Promise<number> {
    const rows = await this.contexts.forMaintenance('webhook-retention').sql(
      `DELETE FROM webhook_deliveries WHERE created_at < now() - make_interval(secs => ?) AND status <> 'pending' RETURNING id`,
      [this.settings.retentionMs / 1000],
    );
    return rows.length;
  }
}

const succeeded = (result: SendResult) => result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300 && result.error === null;

function outcomeOf(result: SendResult): string {
  if (succeeded(result)) return 'success';
  if (result.statusCode === null) return result.error?.startsWith('refused destination') ? 'refused' : 'error';
  return `http_${Math.floor(result.statusCode / 100)}xx`;
}
