import { LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { type PageWindow, readCountedPage } from '../db/reads.js';
import { WebhookAttempt } from '../entities/webhook-attempt.entity.js';
import { WebhookDelivery } from '../entities/webhook-delivery.entity.js';
import { type Listed, listed } from './common.js';

// The delivery log as the company reads and steers it (its deliveries and their attempts), apart from the delivery
// engine, which claims and settles them (webhooks/engine/). Its pages are one statement each; a resend and a recovery
// put deliveries back on the engine's schedule.

/** What a delivery is listed with (a page of the log: no payload, no attempts). */
export type DeliveryListed =
  | 'id'
  | 'webhookId'
  | 'event'
  | 'status'
  | 'attemptCount'
  | 'nextAttemptAt'
  | 'lastAttemptAt'
  | 'lastStatusCode'
  | 'createdAt';
export type DeliveryRow = Listed<WebhookDelivery, DeliveryListed>;

const COLUMNS =
  'd.id, d.webhook_id, d.event, d.status, d.attempt_count, d.next_attempt_at, d.last_attempt_at, d.last_status_code, d.created_at';

/** Which deliveries a page reads: one webhook's (of a status, an event), or the company's about one subject. */
export type DeliveryScope =
  | { webhookId: number; status?: string; event?: string }
  | { companyId: number; subject: string };

function scoped(scope: DeliveryScope): { where: string; params: unknown[] } {
  if ('subject' in scope)
    // What a delivery concerns is its event's (a test send concerns nothing).
    return {
      where:
        'd.company_id = $1 AND d.event_id IN (SELECT e.id FROM events e WHERE e.company_id = $1 AND e.subjects @> ARRAY[$2]::text[])',
      params: [scope.companyId, scope.subject],
    };
  const params: unknown[] = [scope.webhookId];
  let where = 'd.webhook_id = $1';
  if (scope.status) where += ` AND d.status = $${params.push(scope.status)}`;
  if (scope.event) where += ` AND d.event = $${params.push(scope.event)}`;
  return { where, params };
}

export const deliveryLogRepository = {
  /** A page of the deliveries in the scope, newest first, and their total. */
  async page(ctx: RequestContext, scope: DeliveryScope, window: PageWindow): Promise<[DeliveryRow[], number]> {
    const { where, params } = scoped(scope);
    const { rows, total } = await readCountedPage<Record<string, unknown>>(
      ctx,
      { select: COLUMNS, from: 'webhook_deliveries d', where, orderBy: 'd.id DESC', params },
      window,
    );
    return [listed(ctx, WebhookDelivery, rows), total];
  },

  /** One delivery of the company (its payload included); `lock`: locked until the unit of work ends. Null otherwise. */
  async one(ctx: RequestContext, id: string, lock = false): Promise<WebhookDelivery | null> {
    return ctx.em.findOne(
      WebhookDelivery,
      { id, companyId: await ctx.companyId() },
      lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
    );
  },

  /** The delivery as the database has it now (after a change by statement). */
  async reread(ctx: RequestContext, delivery: WebhookDelivery): Promise<WebhookDelivery> {
    return (await ctx.em.refresh(delivery)) ?? delivery;
  },

  /** A delivery's attempts, in order. */
  attempts(ctx: RequestContext, deliveryId: string): Promise<WebhookAttempt[]> {
    return ctx.em.find(WebhookAttempt, { deliveryId }, { orderBy: { number: 'asc' } });
  },

  /** The ids of the webhook's failed deliveries made in [from, to], locked until the unit of work ends. */
  async failedIn(ctx: RequestContext, webhookId: number, from: Date, to: Date): Promise<string[]> {
    const rows = await ctx.em
      .createQueryBuilder(WebhookDelivery)
      .select('id')
      .where({ webhookId, status: 'failed', createdAt: { $gte: from, $lte: to } })
      .orderBy({ id: 'asc' })
      .setLockMode(LockMode.PESSIMISTIC_WRITE)
      .execute<Array<{ id: string }>>('all', false);
    return rows.map((row) => row.id);
  },

  /**
   * Puts finished deliveries back on the schedule, due at `due`, with five more attempts each and their ids. One
   * statement: it sets the delivery engine's own columns (its lease, its budget of attempts) as the engine does.
   */
  async restart(ctx: RequestContext, ids: string[], due: Date): Promise<void> {
    await ctx.sql(
      `UPDATE webhook_deliveries SET status = 'pending', final_attempt = attempt_count + 5, next_attempt_at = $1,
         next_trigger = 'manual', in_flight_until = NULL, lease_token = NULL
       WHERE id = ANY($2)`,
      [due, ids],
    );
  },
};
