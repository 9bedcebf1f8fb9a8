import type { RequestContext } from '../context.js';
import { dbDate, pageOf, type Page, type PageWindow } from '../db/reads.js';
import { selectContact } from './payload.js';

// The event store's reads (the outbox writes it): every domain event of a
// company, kept for WEBHOOK_RETENTION whether or not a delivery was made.
// A webhook sees an event as its payload would carry it: the event's data
// with the contact's fields the webhook's form data selects.

interface EventRow {
  id: string;
  type: string;
  data: Record<string, unknown>;
  contact: Record<string, unknown> | null;
  occurred_at: Date | string;
}

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

const COLUMNS = 'e.id, e.type, e.data, e.contact, e.occurred_at';

export const storedEventRecord = (row: EventRow, webhook: EventReader): StoredEventRecord => ({
  id: row.id,
  event: row.type,
  occurredAt: dbDate(row.occurred_at),
  data: { ...row.data, contact: selectContact(row.contact, webhook.formData) },
});

/** Events of the company that the webhook's filters turned away, newest first. */
export async function filteredEvents(ctx: RequestContext, webhook: EventReader, window: PageWindow): Promise<Page<StoredEventRecord>> {
  const where = 'e.company_id = $1 AND e.filtered_by @> ARRAY[$2::int]';
  const params = [await ctx.companyId(), webhook.id];
  const [{ total }] = await ctx.read<{ total: number }>(`SELECT count(*)::int AS total FROM events e WHERE ${where}`, params);
  const rows = await ctx.read<EventRow>(`SELECT ${COLUMNS} FROM events e WHERE ${where} ORDER BY e.id DESC LIMIT ${window.perPage} OFFSET ${window.offset}`, params);
  return pageOf(rows.map((row) => storedEventRecord(row, webhook)), total, window);
}
