import type { ContextFactory, RequestContext } from '../context.js';
import { dbDate } from '../db/dates.js';
import { errorFields, type Logger } from '../observability/logger.js';
import type { Claimed } from './claim.js';
import type { SendResult } from './http-send.js';

// Recording results (DESIGN section 5): every write is fenced by the claim's
// lease token, so a worker whose lease ran out (paused, partitioned) cannot
// record over an attempt that was closed and claimed again. Successes, the
// common case, are recorded together: one statement per short tick for every
// success that finished meanwhile. A failure is a transaction of its own
// (the next attempt's time, a 410, switching a failing webhook off).
//
// The endpoint's concurrency adapts (AIMD): one more slot after a tick in
// which it answered 2xx fast with every slot in use, up to the ceiling; half as many (at least one)
// after a timeout, a connection failure, a 429 or a 5xx. A Retry-After on a
// 429 or 503 pauses the endpoint until then (at most an hour): its due
// attempts wait, and no retry is ever made earlier than its schedule.

/** Attempts in one schedule: the first and one per retry delay. */
export const ATTEMPTS_PER_SCHEDULE = 5;
/** Successes recorded in one statement at most. */
const SETTLE_BATCH = 500;
/** The longest Retry-After honoured. */
const PAUSE_MAX_MS = 3_600_000;

export interface SettleSettings {
  startConcurrency: number;
  maxConcurrency: number;
  /** An answer this fast (and 2xx) lets the endpoint's concurrency grow. */
  fastMs: number;
  retryDelaysMs: number[];
  disableAfterMs: number;
}

/**
 * The retry policy as one function: how long after attempt `n - 1` failed
 * attempt `n` of a schedule is due (n from 2 to 5).
 */
export const makeBackoff = (delaysMs: readonly number[]) => (attempt: number): number => delaysMs[Math.min(Math.max(attempt - 2, 0), delaysMs.length - 1)];

export const succeeded = (result: SendResult) => result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300 && result.error === null;

/** Whether a failure says the endpoint is overloaded (and its concurrency should shrink). */
const overloaded = (result: SendResult) => result.timedOut === true || result.statusCode === null || result.statusCode === 429 || result.statusCode >= 500;

interface Pending {
  delivery: Claimed;
  result: SendResult;
  done: (recorded: boolean) => void;
  fail: (error: unknown) => void;
}

// The successes of a tick in one statement: each delivery and its attempt,
// fenced by the lease token; and, read in the same snapshot (where the
// deliveries it settles still count as in flight), the endpoints whose
// webhook row must change: a failing clock to clear, or a concurrency to grow
// because every slot was in use and the answers were fast.
const SETTLE_SUCCESSES = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[], $4::int[], $5::int[], $6::text[], $7::bool[]) AS t(id, token, number, code, duration, body, fast)
  ), settled AS (
    UPDATE webhook_deliveries d SET status = 'succeeded', last_status_code = i.code, in_flight_until = NULL, lease_token = NULL
    FROM input i WHERE d.id = i.id AND d.lease_token = i.token
    RETURNING d.id, d.webhook_id, i.number, i.code, i.duration, i.body, i.fast
  ), attempts AS (
    UPDATE webhook_attempts a SET finished_at = now(), status_code = s.code, duration_ms = s.duration, response_body = s.body, error = NULL
    FROM settled s WHERE a.delivery_id = s.id AND a.number = s.number
  ), per AS (
    SELECT webhook_id, bool_or(fast) AS fast FROM settled GROUP BY webhook_id
  )
  SELECT id, NULL::int AS webhook_id, NULL::bool AS grow FROM settled
  UNION ALL
  SELECT NULL, id, grow FROM (
    SELECT w.id, w.failing_since, per.fast AND coalesce(w.concurrency, $8) < greatest($8, $9)
        AND (SELECT count(*) FROM webhook_deliveries f WHERE f.webhook_id = w.id AND f.lease_token IS NOT NULL) >= coalesce(w.concurrency, $8) AS grow
    FROM webhooks w JOIN per ON per.webhook_id = w.id
  ) endpoints WHERE grow OR failing_since IS NOT NULL`;

// One webhook row per statement, in id order: a statement that holds one row lock and waits for nothing
// else can never close a cycle with a claim updating several webhooks' hits.
const SETTLE_ENDPOINT = `
  UPDATE webhooks SET failing_since = NULL, concurrency = CASE WHEN $2::bool THEN least(greatest($3::int, $4::int), coalesce(concurrency, $3::int) + 1) ELSE concurrency END
  WHERE id = $1 AND (failing_since IS NOT NULL OR $2::bool)`;

export class Settler {
  private readonly queue: Pending[] = [];
  private flushing = false;
  private readonly backoff: (attempt: number) => number;

  constructor(
    private readonly contexts: ContextFactory,
    private readonly settings: SettleSettings,
    private readonly log: Logger,
  ) {
    this.backoff = makeBackoff(settings.retryDelaysMs);
  }

  /** Records a success with the others of this tick; resolves false when the lease was no longer this worker's. */
  success(delivery: Claimed, result: SendResult): Promise<boolean> {
    return new Promise((done, fail) => {
      this.queue.push({ delivery, result, done, fail });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, SETTLE_BATCH);
      try {
        const maintenance = this.contexts.forMaintenance('webhook-settle');
        const rows = await maintenance.read<{ id: string | null; webhook_id: number | null; grow: boolean | null }>(SETTLE_SUCCESSES, [
          batch.map((p) => p.delivery.id),
          batch.map((p) => p.delivery.lease_token),
          batch.map((p) => p.delivery.attempt_count),
          batch.map((p) => p.result.statusCode),
          batch.map((p) => p.result.durationMs),
          batch.map((p) => p.result.responseBody),
          batch.map((p) => p.result.durationMs <= this.settings.fastMs),
          this.settings.startConcurrency,
          this.settings.maxConcurrency,
        ]);
        const recorded = new Set(rows.filter((r) => r.id !== null).map((r) => r.id));
        for (const p of batch) p.done(recorded.has(p.delivery.id));
        const endpoints = rows.filter((r) => r.webhook_id !== null).sort((a, b) => a.webhook_id! - b.webhook_id!);
        for (const e of endpoints) {
          await maintenance.read(SETTLE_ENDPOINT, [e.webhook_id, e.grow === true, this.settings.startConcurrency, this.settings.maxConcurrency]).catch((error) => this.log.warn('endpoint state not updated', { webhookId: e.webhook_id, ...errorFields(error) }));
        }
      } catch (error) {
        for (const p of batch) p.fail(error);
      }
    }
    this.flushing = false;
  }

  /**
   * Records a failed attempt and moves the delivery on: the next attempt due
   * after the backoff, or failed after the last attempt of its schedule; a
   * 410 switches the webhook off and cancels its other pending deliveries; a
   * webhook failing for WEBHOOK_DISABLE_AFTER is switched off. Returns when
   * the next attempt is due, 'stale' when the lease was no longer this
   * worker's (nothing recorded), or undefined.
   */
  async failure(delivery: Pick<Claimed, 'id' | 'company_id' | 'attempt_count' | 'lease_token'>, result: SendResult): Promise<Date | 'stale' | undefined> {
    let webhookId: number | undefined;
    const outcome = await this.contexts.forSystem(delivery.company_id, 'webhook-delivery').unitOfWork(async (ctx) => {
      const [row] = await ctx.read<{ webhook_id: number; final_attempt: number; status: string }>(
        'SELECT webhook_id, final_attempt, status FROM webhook_deliveries WHERE id = $1 AND lease_token = $2 FOR UPDATE',
        [delivery.id, delivery.lease_token],
      );
      if (!row) return 'stale' as const;
      webhookId = row.webhook_id;
      const number = delivery.attempt_count;
      await ctx.read(
        'UPDATE webhook_attempts SET finished_at = now(), status_code = $1, duration_ms = $2, response_body = $3, error = $4 WHERE delivery_id = $5 AND number = $6',
        [result.statusCode, result.durationMs, result.responseBody, result.error, delivery.id, number],
      );
      if (result.statusCode === 410) {
        await ctx.read(`UPDATE webhook_deliveries SET status = 'failed', last_status_code = 410, in_flight_until = NULL, lease_token = NULL WHERE id = $1`, [delivery.id]);
        await this.switchOff(ctx, row.webhook_id, 'gone');
        return undefined;
      }
      const last = number >= row.final_attempt || row.status !== 'pending';
      const attemptInSchedule = ATTEMPTS_PER_SCHEDULE - (row.final_attempt - number) + 1;
      const due = last ? null : new Date(Date.now() + this.backoff(attemptInSchedule));
      await ctx.read(
        `UPDATE webhook_deliveries SET status = CASE WHEN status = 'pending' AND $1 THEN 'failed' ELSE status END,
           next_attempt_at = CASE WHEN status = 'pending' THEN $2::timestamptz ELSE NULL END, last_status_code = $3, in_flight_until = NULL, lease_token = NULL
         WHERE id = $4`,
        [last, due, result.statusCode, delivery.id],
      );
      // The webhook row is written only when its failing clock starts, so failures hold no lock on it that a claim would wait for.
      const [webhook] = await ctx
        .read<{ failing_since: Date }>('UPDATE webhooks SET failing_since = now() WHERE id = $1 AND failing_since IS NULL RETURNING failing_since', [row.webhook_id])
        .then(async (set) => (set.length ? set : ctx.read<{ failing_since: Date }>('SELECT failing_since FROM webhooks WHERE id = $1', [row.webhook_id])));
      if (webhook && Date.now() - dbDate(webhook.failing_since)!.getTime() >= this.settings.disableAfterMs) {
        await this.switchOff(ctx, row.webhook_id, 'failing');
        return undefined;
      }
      return due ?? undefined;
    }, { plain: true });
    // After the commit, in a statement of its own: the row lock lasts one statement.
    if (outcome !== 'stale' && webhookId !== undefined) {
      await this.adapt(webhookId, result).catch((error) => this.log.warn('endpoint concurrency not adapted', { webhookId, ...errorFields(error) }));
    }
    return outcome;
  }

  /** Shrinks an overloaded endpoint's concurrency, and pauses it for its Retry-After. */
  private async adapt(webhookId: number, result: SendResult): Promise<void> {
    if (!overloaded(result)) return;
    const pauseMs = result.retryAfterMs === undefined ? null : Math.min(result.retryAfterMs, PAUSE_MAX_MS);
    await this.contexts.forMaintenance('webhook-settle').read(
      `UPDATE webhooks SET concurrency = greatest(1, coalesce(concurrency, $2) / 2),
         paused_until = CASE WHEN $3::float8 IS NULL THEN paused_until ELSE greatest(paused_until, now() + make_interval(secs => $3::float8 / 1000)) END
       WHERE id = $1`,
      [webhookId, this.settings.startConcurrency, pauseMs],
    );
  }

  private async switchOff(ctx: RequestContext, webhookId: number, reason: 'gone' | 'failing'): Promise<void> {
    await ctx.read('UPDATE webhooks SET active = false, disabled_reason = $1, updated_at = now() WHERE id = $2', [reason, webhookId]);
    await ctx.read(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE webhook_id = $1 AND status = 'pending' AND lease_token IS NULL`, [webhookId]);
    this.log.warn('webhook switched off', { webhookId, reason });
  }
}
