import type { RequestContext } from '../../context/request-context.js';
import { ConflictError } from '../../kernel/errors.js';
import type { EventRow } from './event-store.js';
import { eventStoreRepository } from '../../repositories/event-store.repository.js';
import { filterMatches, type Filter, type StoredFilters } from '../config/filters.js';
import type { NewDelivery, WebhookOutbox } from '../engine/outbox.js';
import { newDeliveryId, payloadText, selectContact } from '../config/payload.js';
import type { WebhookService } from '../config/webhook.service.js';
import type { Webhook } from '../../entities/webhook.entity.js';
import { timeWindow } from './window.js';

// Replay missing (Svix's "replay missing", Convoy's batch replay): the events
// of a webhook's subscribed types in a window that it never got a delivery
// of (it was inactive, not yet subscribed to the type, or not yet made) are
// sent through the normal delivery path, in the order they happened, each
// as a new delivery with its original timestamp. The webhook's filters apply
// as they do to new events. Running it again finds nothing new to send: each
// delivery names its event, one per webhook.

/** Deliveries made by one replay at most; the answer says how many are left for the next. */
export const REPLAY_MAX = 10_000;
const INSERT_BATCH = 500;

export interface ReplayPreview {
  /** Missing events the replay would send. */
  count: number;
  /** Missing events the webhook's filters turn away (they would not be sent). */
  filtered: number;
  since: Date;
  until: Date;
}

export interface ReplayResult {
  /** Deliveries made now. */
  count: number;
  /** Missing events still to send (past REPLAY_MAX): run it again. */
  remaining: number;
}

export class ReplayService {
  constructor(
    private readonly webhooks: WebhookService,
    private readonly outbox: WebhookOutbox,
    private readonly retentionMs: number,
  ) {}

  /** How many events a replay of the window would send, and how many the filters turn away. */
  async preview(ctx: RequestContext, rawId: string, since: string, until?: string | null): Promise<ReplayPreview> {
    const webhook = await this.webhooks.find(ctx, rawId);
    const { from, to } = this.window(since, until);
    let count = 0;
    let filtered = 0;
    for await (const batch of eventStoreRepository.missing(ctx, webhook.id, webhook.events, from, to)) {
      for (const event of batch) this.passes(webhook, event) ? count++ : filtered++;
    }
    return { count, filtered, since: from, until: to };
  }

  /** Sends the window's missing events that the filters pass, oldest first (at most REPLAY_MAX now). */
  async replay(ctx: RequestContext, rawId: string, since: string, until?: string | null): Promise<ReplayResult> {
    // One replay of a webhook at a time: a second waits for the webhook's lock, then finds what the first sent.
    const webhook = await this.webhooks.find(ctx, rawId, true);
    const { from, to } = this.window(since, until);
    if (!webhook.active) throw new ConflictError('The webhook is inactive: activate it before replaying events to it.');
    const due = new Date();
    let count = 0;
    let remaining = 0;
    let pending: NewDelivery[] = [];
    const flush = async () => {
      await this.outbox.insert(ctx, pending);
      pending = [];
    };
    for await (const batch of eventStoreRepository.missing(ctx, webhook.id, webhook.events, from, to)) {
      for (const event of batch) {
        if (!this.passes(webhook, event)) continue;
        if (count === REPLAY_MAX) {
          remaining++;
          continue;
        }
        count++;
        pending.push(this.delivery(webhook, event, due));
        if (pending.length === INSERT_BATCH) await flush();
      }
    }
    await flush();
    return { count, remaining };
  }

  private window(since: string, until: string | null | undefined) {
    return timeWindow(since, until, Math.max(1, Math.ceil(this.retentionMs / 86_400_000)), 'replay');
  }

  private passes(webhook: Webhook, event: EventRow): boolean {
    const filter = (webhook.filters as StoredFilters)[event.type as keyof StoredFilters];
    return !filter || filterMatches(filter as Filter, { ...event.data, contact: event.contact ?? null });
  }

  private delivery(webhook: Webhook, event: EventRow, due: Date): NewDelivery {
    return {
      id: newDeliveryId(),
      webhookId: webhook.id,
      companyId: webhook.company.id,
      event: event.type,
      payload: payloadText({
        event: event.type,
        occurredAt: event.occurredAt,
        webhookId: webhook.id,
        data: event.data,
        contact: selectContact(event.contact ?? null, webhook.formData),
      }),
      trigger: 'manual',
      due,
      eventId: event.id,
    };
  }
}
