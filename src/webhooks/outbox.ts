import type { RequestContext } from '../context.js';
import type { DomainEvent, EventSink } from '../events/recorder.js';
import { newDeliveryId, payloadText, selectContact } from './payload.js';
import { DUE_CHANNEL } from './pump.js';
import type { DeliveryScheduler } from './scheduler.js';

// The transactional outbox: an event becomes one delivery row per active
// webhook of the company subscribed to it, written in the transaction of the
// change that caused the event. Attempt 1 is scheduled once that commits.

export class WebhookOutbox implements EventSink {
  constructor(private readonly scheduler: DeliveryScheduler) {}

  async accept(ctx: RequestContext, event: DomainEvent): Promise<void> {
    const company = await ctx.companyId();
    const webhooks = await ctx.sql<{ id: number; form_data: string[] }>(
      'SELECT id, form_data FROM webhooks WHERE company_id = ? AND active AND events @> ?::jsonb ORDER BY id',
      [company, JSON.stringify([event.type])],
    );
    const ids: string[] = [];
    const due = new Date();
    for (const webhook of webhooks) {
      const id = newDeliveryId();
      const payload = payloadText({ event: event.type, occurredAt: event.occurredAt, webhookId: webhook.id, data: event.data, contact: selectContact(event.contact, webhook.form_data) });
      await this.insert(ctx, { id, webhookId: webhook.id, companyId: company, event: event.type, payload, trigger: 'scheduled', due });
      ids.push(id);
    }
    await this.afterCommit(ctx, ids);
  }

  /** A delivery row due now (also for test sends). */
  async insert(ctx: RequestContext, d: { id: string; webhookId: number; companyId: number; event: string; payload: string; trigger: string; due: Date }): Promise<void> {
    await ctx.sql(
      `INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, attempt_count, final_attempt, next_attempt_at, next_trigger, created_at)
       VALUES (?, ?, ?, ?, 'pending', ?, 0, 5, ?, ?, ?)`,
      [d.id, d.webhookId, d.companyId, d.event, d.payload, d.due, d.trigger, d.due],
    );
  }

  /**
   * Once the change commits, the first attempts go out: a NOTIFY sent inside
   * the transaction reaches every worker's pump at commit (and never for a
   * rollback); a pump in this process is woken directly.
   */
  async afterCommit(ctx: RequestContext, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await ctx.sql(`SELECT pg_notify('${DUE_CHANNEL}', '')`);
    ctx.afterCommit(() => this.scheduler.kick());
  }
}
