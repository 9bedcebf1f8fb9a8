import type { RequestContext } from '../../context/request-context.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../kernel/vocabulary.js';
import { ConflictError, NotFoundError, ValidationError } from '../../kernel/errors.js';
import { EVENT_NAMES, eventDoc, isEventType } from '../../events/catalog.js';
import { dbDate, pageWindow, pageOf, type Page, type PageArgs } from '../../db/reads.js';
import { Rules, message } from '../../kernel/validation.js';
import type { WebhookOutbox } from '../engine/outbox.js';
import { newDeliveryId, payloadText, selectContact } from '../config/payload.js';
import type { WebhookService } from '../config/webhook.service.js';
import { subject, SUBJECT_KINDS } from '../config/subjects.js';
import { filteredEvents, operatorNotices, type StoredEventRecord } from './event-store.js';
import { timeWindow } from './window.js';

// The deliveries of a company's webhooks: their rows and attempts (the
// delivery log), a test send, a resend and the recovery of failed ones.
// Every read and change goes through the webhook's company.

export const RECOVER_WINDOW_DAYS = 14;

interface DeliveryRow {
  id: string;
  webhook_id: number;
  event: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date | string | null;
  last_attempt_at: Date | string | null;
  last_status_code: number | null;
  created_at: Date | string;
  payload?: string;
}

interface AttemptRow {
  number: number;
  trigger: string;
  attempted_at: Date | string;
  status_code: number | null;
  duration_ms: number | null;
  response_body: string | null;
  error: string | null;
  header_names: string[] | null;
}

/** A delivery as the GraphQL WebhookDelivery type serves it; `payload` and `attempts` for one delivery only. */
export interface DeliveryRecord {
  id: string;
  webhookId: number;
  event: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  createdAt: Date;
  payload: string | null;
  attempts: AttemptRecord[] | null;
}

export interface AttemptRecord {
  number: number;
  trigger: string;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number | null;
  responseBody: string | null;
  error: string | null;
  /** The webhook's custom headers the attempt sent, by name. */
  headers: string[];
}

const deliveryRecord = (row: DeliveryRow, attempts: AttemptRecord[] | null = null): DeliveryRecord => ({
  id: row.id,
  webhookId: row.webhook_id,
  event: row.event,
  status: row.status,
  attemptCount: row.attempt_count,
  nextAttemptAt: dbDate(row.next_attempt_at),
  lastAttemptAt: dbDate(row.last_attempt_at),
  lastStatusCode: row.last_status_code,
  createdAt: dbDate(row.created_at),
  payload: row.payload ?? null,
  attempts,
});

const attemptRecord = (row: AttemptRow): AttemptRecord => ({
  number: row.number,
  trigger: row.trigger,
  attemptedAt: dbDate(row.attempted_at),
  statusCode: row.status_code,
  durationMs: row.duration_ms,
  responseBody: row.response_body,
  error: row.error,
  headers: row.header_names ?? [],
});

const DELIVERY_COLUMNS =
  'id, webhook_id, event, status, attempt_count, next_attempt_at, last_attempt_at, last_status_code, created_at';

export class DeliveryService {
  constructor(
    private readonly webhooks: WebhookService,
    private readonly outbox: WebhookOutbox,
  ) {}

  /** Sends the documented example of an event (default: the webhook's first) now, as a delivery of its own. */
  async test(ctx: RequestContext, rawId: string, event?: string | null): Promise<DeliveryRecord> {
    const webhook = await this.webhooks.find(ctx, rawId);
    const name = event ?? webhook.events[0];
    if (!isEventType(name)) throw ValidationError.field('event', message.oneOf('event', name, EVENT_NAMES));
    const doc = eventDoc(name);
    const { contact, ...data } = doc.example;
    const id = newDeliveryId();
    const due = new Date();
    const payload = payloadText({
      event: name,
      occurredAt: due,
      webhookId: webhook.id,
      data,
      contact: selectContact(contact as Record<string, unknown> | null, webhook.formData),
    });
    await this.outbox.insert(ctx, [
      { id, webhookId: webhook.id, companyId: webhook.companyId, event: name, payload, trigger: 'manual', due },
    ]);
    const [record] = await this.deliveryRecords(ctx, 'd.id = $1', [id]);
    // None when the webhook was deleted while the test send waited for it (outbox.ts).
    if (!record) throw new NotFoundError('Webhook');
    return record;
  }

  async deliveries(
    ctx: RequestContext,
    rawId: string,
    args: PageArgs & { status?: string | null; event?: string | null },
  ): Promise<Page<DeliveryRecord>> {
    const webhook = await this.webhooks.find(ctx, rawId);
    new Rules().oneOf('status', args.status, DELIVERY_STATUSES).oneOf('event', args.event, EVENT_NAMES).check();
    const window = pageWindow(args);
    const conditions = ['d.webhook_id = $1'];
    const params: unknown[] = [webhook.id];
    if (args.status) params.push(args.status), conditions.push(`d.status = $${params.length}`);
    if (args.event) params.push(args.event), conditions.push(`d.event = $${params.length}`);
    const where = conditions.join(' AND ');
    const [{ total }] = await ctx.sql<{ total: number }>(
      `SELECT count(*)::int AS total FROM webhook_deliveries d WHERE ${where}`,
      params,
    );
    const records = await this.deliveryRecords(
      ctx,
      where,
      params,
      `ORDER BY d.id DESC LIMIT ${window.perPage} OFFSET ${window.offset}`,
    );
    return pageOf(records, total, window);
  }

  /**
   * The company's deliveries about one subject (a call, a campaign, a contact
   * or an agent), across every webhook, newest first: exactly one id is given.
   */
  async bySubject(
    ctx: RequestContext,
    args: PageArgs & Partial<Record<'callId' | 'campaignId' | 'contactId' | 'agentId', string | null>>,
  ): Promise<Page<DeliveryRecord>> {
    const given = SUBJECT_KINDS.flatMap((kind) => {
      const id = args[`${kind}Id`];
      return id === undefined || id === null ? [] : [[kind, `${kind}Id`, id] as const];
    });
    if (given.length !== 1)
      throw ValidationError.field('callId', 'Give exactly one of call id, campaign id, contact id and agent id.');
    const [[kind, field, id]] = given;
    if (!/^[1-9][0-9]{0,17}$/.test(id))
      throw ValidationError.field(field, `The ${field.replace('Id', ' id')} field must be a numeric id.`);
    const window = pageWindow(args);
    // What a delivery concerns is its event's (a test send concerns nothing).
    const where =
      'd.company_id = $1 AND d.event_id IN (SELECT e.id FROM events e WHERE e.company_id = $1 AND e.subjects @> ARRAY[$2]::text[])';
    const params = [await ctx.companyId(), subject(kind, id)];
    const [{ total }] = await ctx.sql<{ total: number }>(
      `SELECT count(*)::int AS total FROM webhook_deliveries d WHERE ${where}`,
      params,
    );
    const records = await this.deliveryRecords(
      ctx,
      where,
      params,
      `ORDER BY d.id DESC LIMIT ${window.perPage} OFFSET ${window.offset}`,
    );
    return pageOf(records, total, window);
  }

  /** The events the webhook's filters turned away (no delivery was made), newest first. */
  async filtered(ctx: RequestContext, rawId: string, args: PageArgs): Promise<Page<StoredEventRecord>> {
    const webhook = await this.webhooks.find(ctx, rawId);
    return filteredEvents(ctx, webhook, pageWindow(args));
  }

  /** The company's operator events (webhook.failing, webhook.disabled, ...), newest first; with a webhook id, those about it. */
  async notices(
    ctx: RequestContext,
    rawId: string | null | undefined,
    args: PageArgs & { open?: boolean | null },
  ): Promise<Page<StoredEventRecord>> {
    const webhookId = rawId === null || rawId === undefined ? null : (await this.webhooks.find(ctx, rawId)).id;
    return operatorNotices(ctx, webhookId, pageWindow(args), args.open === true);
  }

  /** One delivery of the company, with its payload and every attempt. */
  async delivery(ctx: RequestContext, rawId: string): Promise<DeliveryRecord> {
    const [row] = await ctx.sql<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS}, payload FROM webhook_deliveries d WHERE d.id = $1 AND d.company_id = $2`,
      [this.deliveryId(rawId), await ctx.companyId()],
    );
    if (!row) throw new NotFoundError('Delivery');
    const attempts = await ctx.sql<AttemptRow>(
      'SELECT number, trigger, attempted_at, status_code, duration_ms, response_body, error, header_names ' +
        'FROM webhook_attempts WHERE delivery_id = $1 ORDER BY number',
      [row.id],
    );
    return deliveryRecord(row, attempts.map(attemptRecord));
  }

  /** Sends a finished delivery again now, with a fresh schedule of five attempts and the same id. */
  async resend(ctx: RequestContext, rawId: string): Promise<DeliveryRecord> {
    const id = this.deliveryId(rawId);
    const [row] = await ctx.sql<{ status: string }>(
      'SELECT status FROM webhook_deliveries WHERE id = $1 AND company_id = $2 FOR UPDATE',
      [id, await ctx.companyId()],
    );
    if (!row) throw new NotFoundError('Delivery');
    if (row.status === 'pending')
      throw new ConflictError('The delivery is still pending; it will be attempted on its schedule.');
    await this.restart(ctx, [id]);
    return (await this.deliveryRecords(ctx, 'd.id = $1', [id]))[0];
  }

  /** Re-sends every failed delivery of the webhook created in [since, until] (at most 14 days). */
  async recover(ctx: RequestContext, rawId: string, since: string, until?: string | null): Promise<number> {
    const webhook = await this.webhooks.find(ctx, rawId);
    const { from, to } = timeWindow(since, until, RECOVER_WINDOW_DAYS, 'recovery');
    const rows = await ctx.sql<{ id: string }>(
      `SELECT id FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'failed' AND created_at >= $2 AND created_at <= $3 ORDER BY id FOR UPDATE`,
      [webhook.id, from, to],
    );
    await this.restart(
      ctx,
      rows.map((r) => r.id),
    );
    return rows.length;
  }

  private async restart(ctx: RequestContext, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const due = new Date();
    await ctx.sql(
      `UPDATE webhook_deliveries SET status = 'pending', final_attempt = attempt_count + 5, next_attempt_at
        = $1, next_trigger = 'manual', in_flight_until = NULL, lease_token = NULL
       WHERE id = ANY($2)`,
      [due, ids],
    );
    this.outbox.afterCommit(ctx);
  }

  private deliveryId(raw: string): string {
    if (!/^msg_[0-9A-HJKMNP-TV-Z]{26}$/.test(raw)) throw new NotFoundError('Delivery');
    return raw;
  }

  /** Deliveries without their payload or attempts (a page of the log, or one just sent). */
  private async deliveryRecords(
    ctx: RequestContext,
    where: string,
    params: unknown[],
    tail = '',
  ): Promise<DeliveryRecord[]> {
    const rows = await ctx.sql<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE ${where} ${tail}`,
      params,
    );
    return rows.map((row) => deliveryRecord(row));
  }
}
