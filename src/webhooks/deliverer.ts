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

interface Claimed {
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

type ClaimResult = { kind: 'claimed'; delivery: Claimed } | { kind: 'busy' } | { kind: 'early'; due: Date } | { kind: 'none' };

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

  /** One attempt of a delivery, if one is due; what a delivery job runs. */
  async run(deliveryId: string): Promise<void> {
    const claim = await this.contexts.forMaintenance('webhook-delivery').unitOfWork((ctx) => this.claim(ctx, deliveryId));
    if (claim.kind === 'early') return this.scheduler.schedule(deliveryId, claim.due);
    if (claim.kind === 'busy') {
      // The endpoint already has its share of attempts in flight: this one waits a moment, later never earlier.
      const due = new Date(Date.now() + 250);
      await this.contexts.forMaintenance('webhook-delivery').sql(`UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at IS NOT NULL`, [due, deliveryId]);
      return this.scheduler.schedule(deliveryId, due);
    }
    if (claim.kind === 'none') return;
    const { delivery } = claim;
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
    const next = await this.contexts.forSystem(delivery.company_id, 'webhook-delivery').unitOfWork((ctx) => this.settle(ctx, delivery.id, number, result));
    if (next) await this.scheduler.schedule(delivery.id, next);
  }

  /** Takes the next attempt of a due delivery and records it as begun, or says why not. */
  private async claim(ctx: RequestContext, deliveryId: string): Promise<ClaimResult> {
    const [row] = await ctx.sql<Claimed & { status: string; next_attempt_at: Date | null; active: boolean }>(
      `SELECT d.id, d.webhook_id, d.company_id, d.event, d.payload, d.attempt_count, d.final_attempt, d.next_trigger, d.status, d.next_attempt_at, d.created_at,
              w.url, w.active, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = ? FOR UPDATE OF w, d`,
      [deliveryId],
    );
    if (!row || row.status !== 'pending' || row.next_attempt_at === null) return { kind: 'none' };
    row.next_attempt_at = dbDate(row.next_attempt_at);
    row.created_at = dbDate(row.created_at);
    row.previous_secret_expires_at = dbDate(row.previous_secret_expires_at);
    if (!row.active) {
      await ctx.sql(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE id = ?`, [deliveryId]);
      return { kind: 'none' };
    }
    if (row.next_attempt_at.getTime() > Date.now()) return { kind: 'early', due: row.next_attempt_at };
    const [{ n }] = await ctx.sql<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ? AND in_flight_until > now()', [row.webhook_id]);
    if (n >= this.settings.endpointConcurrency) return { kind: 'busy' };
    const number = row.attempt_count + 1;
    await ctx.sql(
      `UPDATE webhook_deliveries SET attempt_count = ?, next_attempt_at = NULL, last_attempt_at = now(), next_trigger = 'scheduled',
         in_flight_until = now() + make_interval(secs => ?) WHERE id = ?`,
      [number, (this.settings.timeoutMs + 5000) / 1000, deliveryId],
    );
    await ctx.sql(
      'INSERT INTO webhook_attempts (delivery_id, number, trigger, attempted_at) VALUES (?, ?, ?, now())',
      [deliveryId, number, row.next_trigger],
    );
    await ctx.sql('UPDATE webhooks SET hits = hits + 1, last_hit = now() WHERE id = ?', [row.webhook_id]);
    return { kind: 'claimed', delivery: { ...row, attempt_count: number } };
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
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300 && result.error === null;
    if (ok) {
      await ctx.sql(`UPDATE webhook_deliveries SET status = 'succeeded', last_status_code = ?, in_flight_until = NULL WHERE id = ?`, [result.statusCode, deliveryId]);
      await ctx.sql('UPDATE webhooks SET failing_since = NULL WHERE id = ?', [delivery.webhook_id]);
      return undefined;
    }
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
      'UPDATE webhooks SET failing_since = COALESCE(failing_since, now()) WHERE id = ? RETURNING failing_since',
      [delivery.webhook_id],
    );
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
    const due = await maintenance.sql<{ id: string; next_attempt_at: Date }>(
      `SELECT id, next_attempt_at FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at < now() + interval '10 seconds' ORDER BY next_attempt_at LIMIT 2000`,
    );
    for (const row of due) await this.scheduler.schedule(row.id, dbDate(row.next_attempt_at));
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

function outcomeOf(result: SendResult): string {
  if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300 && !result.error) return 'success';
  if (result.statusCode === null) return result.error?.startsWith('refused destination') ? 'refused' : 'error';
  return `http_${Math.floor(result.statusCode / 100)}xx`;
}
