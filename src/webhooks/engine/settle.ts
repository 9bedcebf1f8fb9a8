import type { ContextFactory, RequestContext } from '../../context/request-context.js';
import { errorFields, type Logger } from '../../observability/logger.js';
import type { Claimed } from './claim.js';
import type { SendResult } from './attempt.js';
import { TickBatch } from './tick-batch.js';
import { attemptOutcome } from '../../kernel/attempt-outcome.js';
import { STATS_OF_ONE, statsUpsert } from './stats.js';
import { webhookRepository } from '../../repositories/webhook.repository.js';
import { released, wakeAfterCommit } from './settle-wakes.js';
import { isOperatorEvent } from '../../events/catalog.js';
import { failingPercent, type ExhaustedDelivery, type OperatorEvents } from './operator-events.js';

// Recording results (docs/design.md §5): every write is fenced by the claim's
// lease token, so a worker whose lease ran out (paused, partitioned) cannot
// record over an attempt that was closed and claimed again. Results are
// recorded together: one statement per short tick for every success that
// finished meanwhile (held a few milliseconds at most while this process
// still sends other attempts, whose results then join it: docs/adr/0101),
// and one for every failure (each delivery's next attempt time, or failed
// after the last of its schedule). Then, per webhook of the
// tick, one row at a time: a failing clock started or cleared, a concurrency
// grown or halved (once per tick, however many of its attempts failed), a
// webhook failing for too long switched off. A 410 is a transaction of its own,
// and so is the last attempt of a schedule, which records delivery.exhausted
// with it; the other operator events (operator-events.ts) are recorded with
// the change of the webhook row they report.
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
  /**
   * How long a success waits at most for the results of the attempts this process is still sending, to be recorded
   * with them (docs/adr/0101-settles-held-for-their-claim.md; 0: never); one of an ordered webhook never waits.
   */
  holdMs: number;
  /** An answer this fast (and 2xx) lets the endpoint's concurrency grow. */
  fastMs: number;
  retryDelaysMs: number[];
  disableAfterMs: number;
  /** Whether each webhook's record over time is kept (stats.ts). */
  stats: boolean;
}

/** A 2xx answer, or a broker that took the message (no status code, no error). */
export const succeeded = (result: SendResult) =>
  result.error === null && (result.statusCode === null || (result.statusCode >= 200 && result.statusCode < 300));

/** Whether a failure says the endpoint is overloaded (and its concurrency should shrink). */
const overloaded = (result: SendResult) =>
  result.timedOut === true || result.statusCode === null || result.statusCode === 429 || result.statusCode >= 500;

type FailureTarget = Pick<Claimed, 'id' | 'company_id' | 'attempt_count' | 'final_attempt' | 'lease_token'>;
/** When a failed delivery's next attempt is due, 'stale' when the lease was no longer this worker's, undefined when there is none. */
type FailureOutcome = Date | 'stale' | undefined;

interface Result<D> {
  delivery: D;
  result: SendResult;
}

/** The first six parameters of both settle statements, a column per field: id, lease token, attempt number, status code, duration, response body. */
const resultColumns = (batch: Array<Result<FailureTarget>>) => [
  batch.map((p) => p.delivery.id),
  batch.map((p) => p.delivery.lease_token),
  batch.map((p) => p.delivery.attempt_count),
  batch.map((p) => p.result.statusCode),
  batch.map((p) => p.result.durationMs),
  batch.map((p) => p.result.responseBody),
];

/** The batch's deliveries from the first id to the last ($10, $11; partitions pruned as the claim's are: due-window.ts). */
const BATCH_IDS = (id: string) => `${id} >= $10::text AND ${id} <= $11::text`;

// The successes of a tick in one statement: each delivery and its attempt,
// fenced by the lease token, and its endpoint's count of attempts in flight;
// and, read in the same snapshot (where the
// deliveries it settles still count as in flight), the endpoints whose
// webhook row must change: a failing clock to clear, or a concurrency to grow
// because every slot was in use and the answers were fast.
export const settleSuccesses = (stats: boolean, start: number) => `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[], $4::int[], $5::int[], $6::text[], $7::bool[]) AS t(id, token, number, code, duration, body, fast)
  ), settled AS (
    UPDATE webhook_deliveries d SET status = 'succeeded', last_status_code = i.code, in_flight_until = NULL, lease_token = NULL
    FROM input i WHERE d.id = ANY ($1::text[]) AND ${BATCH_IDS('d.id')} AND d.id = i.id AND d.lease_token = i.token
    RETURNING d.id, d.webhook_id, d.company_id, i.number, i.code, i.duration, i.body, i.fast
  ), attempts AS (
    UPDATE webhook_attempts a SET finished_at = now(), status_code = s.code, duration_ms = s.duration, response_body = s.body, error = NULL
    FROM settled s WHERE a.delivery_id = s.id AND a.number = s.number
  )${
    stats
      ? `, stats AS (${statsUpsert("'success'", 'false')}
  )`
      : ''
  }, released AS (${released(start, '$12::text', '$13::text')}  ), per AS (
    SELECT webhook_id, bool_or(fast) AS fast FROM settled GROUP BY webhook_id
  )
  SELECT id, NULL::int AS webhook_id, NULL::bool AS grow, NULL::text AS wake FROM settled
  UNION ALL
  SELECT NULL, NULL, NULL, wake FROM waiting
  UNION ALL
  SELECT NULL, id, grow, NULL FROM (
    SELECT w.id, w.failing_since, per.fast AND coalesce(w.concurrency, $8) < greatest($8, $9)
        AND coalesce(c.in_flight, 0) >= coalesce(w.concurrency, $8) AS grow
    FROM webhooks w JOIN per ON per.webhook_id = w.id LEFT JOIN webhook_counters c ON c.webhook_id = w.id
  ) endpoints WHERE grow OR failing_since IS NOT NULL`;

// The failures of a tick in one statement, fenced like the successes: each
// attempt's result, and each delivery's next attempt after its backoff ($8:
// the delays before attempts 2 to 5; the delay before the attempt at place
// p = 5 - (final_attempt - number) + 1 of its schedule is the (p - 1)th), or failed after the last attempt of its
// schedule. A delivery no longer pending (cancelled meanwhile) keeps its status.
const settleFailures = (stats: boolean, start: number) => `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[], $4::int[], $5::int[], $6::text[], $7::text[], $9::text[])
      AS t(id, token, number, code, duration, body, error, outcome)
  ), settled AS (
    UPDATE webhook_deliveries d SET
      status = CASE WHEN d.status = 'pending' AND i.number >= d.final_attempt THEN 'failed' ELSE d.status END,
      next_attempt_at = CASE WHEN d.status = 'pending' AND i.number < d.final_attempt
        THEN now() + make_interval(secs => ($8::float8[])[
          least(greatest(${ATTEMPTS_PER_SCHEDULE} - (d.final_attempt - i.number), 1), array_length($8::float8[], 1))] / 1000)
        ELSE NULL END,
      last_status_code = i.code, in_flight_until = NULL, lease_token = NULL
    FROM input i WHERE d.id = ANY ($1::text[]) AND ${BATCH_IDS('d.id')} AND d.id = i.id AND d.lease_token = i.token
    RETURNING d.id, d.webhook_id, d.company_id, i.number, i.code, i.duration, i.body, i.error, i.outcome, d.next_attempt_at, d.status,
      d.event, d.event_id
  ), attempts AS (
    UPDATE webhook_attempts a SET finished_at = now(), status_code = s.code, duration_ms = s.duration, response_body = s.body, error = s.error
    FROM settled s WHERE a.delivery_id = s.id AND a.number = s.number
  )${
    stats
      ? `, stats AS (${statsUpsert('s.outcome', "s.status = 'failed'")}
  )`
      : ''
  }, released AS (${released(start, '$12::text', '$13::text')}  )
  SELECT id, webhook_id, next_attempt_at, status, event, event_id, number, NULL::text AS wake FROM settled
  UNION ALL
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, wake FROM waiting`;

interface FailureRow extends ExhaustedDelivery {
  next_attempt_at: Date | null;
  status: string;
}

// One webhook row per statement, in id order: a statement that holds one row lock and waits for nothing
// else can never close a cycle with another transaction's row locks. The failing clock of a
// webhook told as failing is cleared with webhook.recovered (`announced`), in a unit of work of its own.
const SETTLE_ENDPOINT = `
  UPDATE webhooks SET failing_since = CASE WHEN failing_notified = 0 THEN NULL ELSE failing_since END,
    concurrency = CASE WHEN $2::bool THEN least(greatest($3::int, $4::int), coalesce(concurrency, $3::int) + 1) ELSE concurrency END
  WHERE id = $1 AND (failing_since IS NOT NULL OR $2::bool)
  RETURNING active AND failing_notified > 0 AND failing_since IS NOT NULL AS announced`;

export class Settler {
  private readonly successes: TickBatch<Result<Claimed>, boolean>;
  private readonly failures = new TickBatch<Result<FailureTarget>, FailureOutcome>(SETTLE_BATCH, (batch) =>
    this.recordFailures(batch),
  );

  /** The two settle statements, with the stats' upsert when they are kept. */
  private readonly statements: { successes: string; failures: string };

  constructor(
    private readonly contexts: ContextFactory,
    private readonly settings: SettleSettings,
    private readonly log: Logger,
    private readonly operator: OperatorEvents,
    /** A batch's first and last id, and the due window (due-window.ts: windowParams). */
    private readonly bounds: (ids: string[]) => Promise<string[]>,
    /** Whether this process has attempts being sent (their results on their way). */
    sending: () => boolean = () => false,
  ) {
    this.successes = new TickBatch(
      SETTLE_BATCH,
      (batch) => this.recordSuccesses(batch),
      settings.holdMs > 0
        ? { ms: settings.holdMs, more: sending, urgent: ({ delivery }) => delivery.ordered }
        : undefined,
    );
    this.statements = {
      successes: settleSuccesses(settings.stats, settings.startConcurrency),
      failures: settleFailures(settings.stats, settings.startConcurrency),
    };
  }

  /** Records a success with the others of this tick; resolves false when the lease was no longer this worker's. */
  success(delivery: Claimed, result: SendResult): Promise<boolean> {
    return this.successes.add({ delivery, result });
  }

  /** One statement of the settles, on the delivery engine's connections (its own transaction). */
  private settleSql<T>(text: string, params: unknown[]): Promise<T[]> {
    return this.contexts
      .forMaintenance('webhook-settle')
      .unitOfWork(async (ctx) => wakeAfterCommit(ctx, await ctx.sql<T>(text, params)), {
        lane: 'engine',
        oneStatement: true,
      });
  }

  private async recordSuccesses(batch: Array<Result<Claimed>>): Promise<boolean[]> {
    const rows = await this.settleSql<{ id: string | null; webhook_id: number | null; grow: boolean | null }>(
      this.statements.successes,
      [
        ...resultColumns(batch),
        batch.map((p) => p.result.durationMs <= this.settings.fastMs),
        this.settings.startConcurrency,
        this.settings.maxConcurrency,
        ...(await this.bounds(batch.map((p) => p.delivery.id))),
      ],
    );
    const endpoints = rows.filter((r) => r.webhook_id !== null).sort((a, b) => a.webhook_id! - b.webhook_id!);
    const companyOf = new Map(batch.map((p) => [p.delivery.webhook_id, p.delivery.company_id]));
    for (const e of endpoints) {
      await this.settleSql<{ announced: boolean }>(SETTLE_ENDPOINT, [
        e.webhook_id,
        e.grow === true,
        this.settings.startConcurrency,
        this.settings.maxConcurrency,
      ])
        .then(async ([row]) => {
          if (row?.announced)
            await this.contexts
              .forSystem(companyOf.get(e.webhook_id!)!, 'webhook-delivery')
              .unitOfWork((ctx) => this.operator.recovered(ctx, e.webhook_id!), { lane: 'reader' });
        })
        .catch((error) =>
          this.log.warn('endpoint state not updated', { webhookId: e.webhook_id, ...errorFields(error) }),
        );
    }
    const recorded = new Set(rows.filter((r) => r.id !== null).map((r) => r.id));
    return batch.map((p) => recorded.has(p.delivery.id));
  }

  /**
   * Records a failed attempt and moves the delivery on: the next attempt due
   * after the backoff, or failed after the last attempt of its schedule; a
   * 410 switches the webhook off and cancels its other pending deliveries; a
   * webhook failing for WEBHOOK_DISABLE_AFTER is switched off. Resolves to
   * when the next attempt is due, 'stale' when the lease was no longer this
   * worker's (nothing recorded), or undefined. Recorded with the other
   * failures of this tick, except a 410.
   */
  failure(delivery: FailureTarget, result: SendResult): Promise<FailureOutcome> {
    if (result.statusCode === 410) return this.gone(delivery, result);
    if (delivery.attempt_count >= delivery.final_attempt) return this.lastOfSchedule(delivery, result);
    return this.failures.add({ delivery, result });
  }

  private async failureParams(batch: Array<Result<FailureTarget>>): Promise<unknown[]> {
    return [
      ...resultColumns(batch),
      batch.map((p) => p.result.error),
      this.settings.retryDelaysMs,
      batch.map((p) => attemptOutcome(p.result)),
      ...(await this.bounds(batch.map((p) => p.delivery.id))),
    ];
  }

  private async recordFailures(batch: Array<Result<FailureTarget>>): Promise<FailureOutcome[]> {
    const rows = await this.settleSql<FailureRow>(this.statements.failures, await this.failureParams(batch));
    return this.failuresRecorded(batch, rows);
  }

  /** The last attempt of a schedule failed: recorded with delivery.exhausted in one transaction. */
  private async lastOfSchedule(delivery: FailureTarget, result: SendResult): Promise<FailureOutcome> {
    const batch = [{ delivery, result }];
    const params = await this.failureParams(batch);
    const rows = await this.contexts.forSystem(delivery.company_id, 'webhook-delivery').unitOfWork(
      async (ctx) => {
        const settled = wakeAfterCommit(ctx, await ctx.sql<FailureRow>(this.statements.failures, params));
        for (const row of settled)
          if (row.status === 'failed' && row.event_id !== null && !isOperatorEvent(row.event))
            await this.operator.exhausted(ctx, row, result);
        return settled;
      },
      { lane: 'reader' },
    );
    return (await this.failuresRecorded(batch, rows))[0];
  }

  private async failuresRecorded(batch: Array<Result<FailureTarget>>, rows: FailureRow[]): Promise<FailureOutcome[]> {
    // The webhooks of the tick, one row per statement in id order: the failing clock, the concurrency, switching off.
    const settled = new Map(rows.map((row) => [row.id, row]));
    const byWebhook = new Map<number, Array<Result<FailureTarget>>>();
    for (const p of batch) {
      const row = settled.get(p.delivery.id);
      if (row) byWebhook.set(row.webhook_id, [...(byWebhook.get(row.webhook_id) ?? []), p]);
    }
    const switchedOff = new Set<number>();
    for (const webhookId of [...byWebhook.keys()].sort((a, b) => a - b)) {
      const failed = byWebhook.get(webhookId)!;
      await this.endpointFailed(
        webhookId,
        failed[0].delivery.company_id,
        failed.map((p) => p.result),
      )
        .then((off) => off && switchedOff.add(webhookId))
        .catch((error) => this.log.warn('endpoint state not updated', { webhookId, ...errorFields(error) }));
    }
    return batch.map((p) => {
      const row = settled.get(p.delivery.id);
      return !row ? 'stale' : switchedOff.has(row.webhook_id) ? undefined : (row.next_attempt_at ?? undefined);
    });
  }

  /**
   * After failures of one webhook in a tick: its failing clock starts if it
   * had not; an overloaded endpoint's concurrency halves once and a
   * Retry-After pauses it; a webhook failing for WEBHOOK_DISABLE_AFTER is
   * switched off (true).
   */
  private async endpointFailed(webhookId: number, companyId: number, results: SendResult[]): Promise<boolean> {
    const overload = results.filter(overloaded);
    const retryAfter = Math.max(-1, ...overload.map((r) => r.retryAfterMs ?? -1));
    const pauseMs = retryAfter < 0 ? null : Math.min(retryAfter, PAUSE_MAX_MS);
    const [webhook] = await this.settleSql<{ failing_since: Date; active: boolean; failing_notified: number }>(
      `UPDATE webhooks SET failing_since = coalesce(failing_since, now()),
         concurrency = CASE WHEN $2::bool THEN greatest(1, coalesce(concurrency, $3) / 2) ELSE concurrency END,
         paused_until = CASE WHEN $4::float8 IS NULL THEN paused_until ELSE greatest(paused_until, now() + make_interval(secs => $4::float8 / 1000)) END
       WHERE id = $1 RETURNING failing_since, active, failing_notified`,
      [webhookId, overload.length > 0, this.settings.startConcurrency, pauseMs],
    );
    if (!webhook?.active) return false;
    const since = webhook.failing_since;
    const system = this.contexts.forSystem(companyId, 'webhook-delivery');
    if (Date.now() - since.getTime() >= this.settings.disableAfterMs) {
      await system.unitOfWork((ctx) => this.switchOff(ctx, webhookId, 'failing'), { lane: 'reader' });
      return true;
    }
    const percent = failingPercent(since, this.settings.disableAfterMs);
    if (percent > webhook.failing_notified)
      await system.unitOfWork(
        (ctx) => this.operator.failing(ctx, webhookId, percent as 50 | 90, results[results.length - 1]),
        { lane: 'reader' },
      );
    return false;
  }

  /** A 410: the attempt recorded, the delivery failed, and the webhook switched off with its other pending deliveries cancelled, in one transaction. */
  private async gone(delivery: FailureTarget, result: SendResult): Promise<FailureOutcome> {
    return this.contexts.forSystem(delivery.company_id, 'webhook-delivery').unitOfWork(
      async (ctx) => {
        const [row] = await ctx.sql<{ webhook_id: number }>(
          'SELECT webhook_id FROM webhook_deliveries WHERE id = $1 AND lease_token = $2 FOR UPDATE',
          [delivery.id, delivery.lease_token],
        );
        if (!row) return 'stale' as const;
        await ctx.sql(
          'UPDATE webhook_attempts SET finished_at = now(), status_code = $1, duration_ms = $2, response_body ' +
            '= $3, error = $4 WHERE delivery_id = $5 AND number = $6',
          [
            result.statusCode,
            result.durationMs,
            result.responseBody,
            result.error,
            delivery.id,
            delivery.attempt_count,
          ],
        );
        await ctx.sql(
          `UPDATE webhook_deliveries SET status = 'failed', last_status_code = 410, in_flight_until = NULL, lease_token = NULL WHERE id = $1`,
          [delivery.id],
        );
        await ctx.sql('UPDATE webhook_counters SET in_flight = in_flight - 1 WHERE webhook_id = $1', [row.webhook_id]);
        if (this.settings.stats)
          await ctx.sql(STATS_OF_ONE, [row.webhook_id, delivery.company_id, result.durationMs, attemptOutcome(result)]);
        await this.switchOff(ctx, row.webhook_id, 'gone');
        return undefined;
      },
      { lane: 'reader' },
    );
  }

  /** Switches the webhook off with webhook.disabled (operator-events.ts) and cancels its waiting deliveries. */
  private async switchOff(ctx: RequestContext, webhookId: number, reason: 'gone' | 'failing'): Promise<void> {
    await this.operator.disable(ctx, webhookId, reason);
    await webhookRepository.cancelPending(ctx, webhookId);
    this.log.warn('webhook switched off', { webhookId, reason });
  }
}
