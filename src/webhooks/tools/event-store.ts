import type { RequestContext } from '../../context/request-context.js';
import { pageOf, type Page, type PageWindow } from '../../db/reads.js';
import { OPERATOR_EVENTS } from '../../events/catalog.js';
import { type EventRow, eventStoreRepository } from '../../repositories/event-store.repository.js';
import { selectContact } from '../config/payload.js';
import { webhookSubject } from '../config/subjects.js';

// The event store as the Webhooks page and the events API read it (its statements are
// repositories/event-store.repository.ts's): a webhook sees an event as its payload would carry it, the event's data
// with the contact's fields the webhook's form data selects.

export type { EventRow };

/** A stored event as the GraphQL StoredEvent type serves it. */
export interface StoredEventRecord {
  id: string;
  event: string;
  occurredAt: Date;
  /** The data a delivery to the webhook carries, contact fields selected by its form data. */
  data: Record<string, unknown>;
}

/** The webhook an event is read for: its id and the contact fields it carries. */
export interface EventReader {
  id: number;
  formData: string[];
}

export const storedEventRecord = (row: EventRow, webhook: EventReader): StoredEventRecord => ({
  id: row.id,
  event: row.type,
  occurredAt: row.occurredAt,
  data: { ...row.data, contact: selectContact(row.contact ?? null, webhook.formData) },
});

/** Events of the company that the webhook's filters turned away, newest first. */
export async function filteredEvents(
  ctx: RequestContext,
  webhook: EventReader,
  window: PageWindow,
): Promise<Page<StoredEventRecord>> {
  const [rows, total] = await eventStoreRepository.filteredBy(ctx, webhook.id, window);
  return pageOf(
    rows.map((row) => storedEventRecord(row, webhook)),
    total,
    window,
  );
}

/**
 * The company's operator events (the notices of the Webhooks page), newest
 * first: every one, or those about one webhook. They carry no contact.
 */
export async function operatorNotices(
  ctx: RequestContext,
  webhookId: number | null,
  window: PageWindow,
  openOnly = false,
): Promise<Page<StoredEventRecord>> {
  const subject = webhookId === null ? null : webhookSubject(webhookId);
  const [rows, total] = await eventStoreRepository.notices(ctx, OPERATOR_EVENTS, subject, window, openOnly);
  return pageOf(
    rows.map((row) => storedEventRecord(row, { id: 0, formData: [] })),
    total,
    window,
  );
}
