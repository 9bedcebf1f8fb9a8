import type { RequestContext } from '../context.js';
import type { DomainEvent, EventSink } from '../events/recorder.js';
import { newDeliveryId, payloadText, selectContact } from './payload.js';
import { DUE_CHANNEL } from './pump.js';
import { subjectsOf } from './subjects.js';

// The transactional outbox: an event becomes one delivery row per active
// webhook of the company subscribed to it, written in the transaction of the
// change that caused the event. Two statements, each of fixed text and so
// prepared once per connection: the subscribed webhooks, then every row in
// one INSERT from a JSON array that also sends the NOTIFY which wakes the
// workers' pumps at commit.

export interface NewDelivery {
  id: string;
  webhookId: number;
  companyId: number;
  event: string;
  payload: string;
  trigger: string;
  due: Date;
  /** What the event concerns (webhooks/subjects.ts); none for a test send. */
  subjects?: string[];
}

const SUBSCRIBED = 'SELECT id, form_data FROM webhooks WHERE company_id = $1 AND active AND events @> $2::jsonb ORDER BY id';

const WRITE = `WITH written AS (
  INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, attempt_count, final_attempt, next_attempt_at, next_trigger, created_at, subjects)
  SELECT d.id, d.webhook_id, d.company_id, d.event, 'pending', d.payload, 0, 5, d.due, d.trigger, d.due, ARRAY(SELECT json_array_elements_text(d.subjects))
  FROM json_to_recordset($1::json) AS d(id text, webhook_id int, company_id int, event text, payload text, trigger text, due timestamptz, subjects json)
) SELECT pg_notify('${DUE_CHANNEL}', '')`;

export class WebhookOutbox implements EventSink<RequestContext> {
  async accept(ctx: RequestContext, event: DomainEvent): Promise<void> {
    const company = await ctx.companyId();
    const webhooks = await ctx.read<{ id: number; form_data: string[] }>(SUBSCRIBED, [company, JSON.stringify([event.type])]);
    const due = new Date();
    const subjects = subjectsOf(event);
    await this.insert(ctx, webhooks.map((webhook) => ({
      id: newDeliveryId(),
      webhookId: webhook.id,
      companyId: company,
      event: event.type,
      payload: payloadText({ event: event.type, occurredAt: event.occurredAt, webhookId: webhook.id, data: event.data, contact: selectContact(event.contact, webhook.form_data) }),
      trigger: 'scheduled',
      due,
      subjects,
    })));
  }

  /** Delivery rows due now (also for test sends), and the NOTIFY that wakes the pumps once they commit, in one statement. */
  async insert(ctx: RequestContext, deliveries: NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const rows = deliveries.map((d) => ({ id: d.id, webhook_id: d.webhookId, company_id: d.companyId, event: d.event, payload: d.payload, trigger: d.trigger, due: d.due, subjects: d.subjects ?? [] }));
    await ctx.read(WRITE, [JSON.stringify(rows)]);
  }

  /**
   * Once the change commits, the first attempts go out: a NOTIFY sent inside
   * the transaction reaches every worker's pump at commit (and never for a
   * rollback). PostgreSQL folds identical notifications of one transaction
   * into one.
   */
  async afterCommit(ctx: RequestContext, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await ctx.sql(`SELECT pg_notify('${DUE_CHANNEL}', '')`);
  }
}
