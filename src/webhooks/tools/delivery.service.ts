import type { RequestContext } from '../../context/request-context.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../kernel/vocabulary.js';
import { ConflictError, NotFoundError, ValidationError } from '../../kernel/errors.js';
import { EVENT_NAMES, eventDoc, isEventType } from '../../events/catalog.js';
import { pageWindow, pageOf, type Page, type PageArgs } from '../../db/reads.js';
import type { WebhookAttempt } from '../../entities/webhook-attempt.entity.js';
import {
  deliveryLogRepository,
  type DeliveryRow,
  type DeliveryScope,
} from '../../repositories/delivery-log.repository.js';
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

const deliveryRecord = (
  row: DeliveryRow & { payload?: string },
  attempts: AttemptRecord[] | null = null,
): DeliveryRecord => ({
  id: row.id,
  webhookId: row.webhookId,
  event: row.event,
  status: row.status as DeliveryStatus,
  attemptCount: row.attemptCount,
  nextAttemptAt: row.nextAttemptAt ?? null,
  lastAttemptAt: row.lastAttemptAt ?? null,
  lastStatusCode: row.lastStatusCode ?? null,
  createdAt: row.createdAt,
  payload: row.payload ?? null,
  attempts,
});

const attemptRecord = (attempt: WebhookAttempt): AttemptRecord => ({
  number: attempt.number,
  trigger: attempt.trigger,
  attemptedAt: attempt.attemptedAt,
  statusCode: attempt.statusCode ?? null,
  durationMs: attempt.durationMs ?? null,
  responseBody: attempt.responseBody ?? null,
  error: attempt.error ?? null,
  headers: attempt.headerNames ?? [],
});

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
      { id, webhookId: webhook.id, companyId: webhook.company.id, event: name, payload, trigger: 'manual', due },
    ]);
    const sent = await deliveryLogRepository.one(ctx, id);
    // None when the webhook was deleted while the test send waited for it (outbox.ts).
    if (!sent) throw new NotFoundError('Webhook');
    return deliveryRecord({ ...sent, payload: undefined });
  }

  async deliveries(
    ctx: RequestContext,
    rawId: string,
    args: PageArgs & { status?: string | null; event?: string | null },
  ): Promise<Page<DeliveryRecord>> {
    const webhook = await this.webhooks.find(ctx, rawId);
    new Rules().oneOf('status', args.status, DELIVERY_STATUSES).oneOf('event', args.event, EVENT_NAMES).check();
    return this.page(
      ctx,
      { webhookId: webhook.id, status: args.status ?? undefined, event: args.event ?? undefined },
      pageWindow(args),
    );
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
    return this.page(ctx, { companyId: await ctx.companyId(), subject: subject(kind, id) }, pageWindow(args));
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
    const delivery = await deliveryLogRepository.one(ctx, this.deliveryId(rawId));
    if (!delivery) throw new NotFoundError('Delivery');
    const attempts = await deliveryLogRepository.attempts(ctx, delivery.id);
    return deliveryRecord(delivery, attempts.map(attemptRecord));
  }

  /** Sends a finished delivery again now, with a fresh schedule of five attempts and the same id. */
  async resend(ctx: RequestContext, rawId: string): Promise<DeliveryRecord> {
    const delivery = await deliveryLogRepository.one(ctx, this.deliveryId(rawId), true);
    if (!delivery) throw new NotFoundError('Delivery');
    if (delivery.status === 'pending')
      throw new ConflictError('The delivery is still pending; it will be attempted on its schedule.');
    await this.restart(ctx, [delivery.id]);
    return deliveryRecord({ ...(await deliveryLogRepository.reread(ctx, delivery)), payload: undefined });
  }

  /** Re-sends every failed delivery of the webhook created in [since, until] (at most 14 days). */
  async recover(ctx: RequestContext, rawId: string, since: string, until?: string | null): Promise<number> {
    const webhook = await this.webhooks.find(ctx, rawId);
    const { from, to } = timeWindow(since, until, RECOVER_WINDOW_DAYS, 'recovery');
    const ids = await deliveryLogRepository.failedIn(ctx, webhook.id, from, to);
    await this.restart(ctx, ids);
    return ids.length;
  }

  private async restart(ctx: RequestContext, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await deliveryLogRepository.restart(ctx, ids, new Date());
    this.outbox.afterCommit(ctx);
  }

  private deliveryId(raw: string): string {
    if (!/^msg_[0-9A-HJKMNP-TV-Z]{26}$/.test(raw)) throw new NotFoundError('Delivery');
    return raw;
  }

  /** A page of the log: deliveries without their payload or attempts. */
  private async page(ctx: RequestContext, scope: DeliveryScope, window: ReturnType<typeof pageWindow>) {
    const [rows, total] = await deliveryLogRepository.page(ctx, scope, window);
    return pageOf(
      rows.map((row) => deliveryRecord(row)),
      total,
      window,
    );
  }
}
