import type { RequestContext } from '../../context/request-context.js';
import { dbDate, pageOf, type Page, type PageWindow } from '../../db/reads.js';
import { OPERATOR_EVENTS } from '../../events/catalog.js';
import { selectContact } from '../config/payload.js';
import { webhookSubject } from '../config/subjects.js';

// The event store's reads (the outbox writes it): every domain event of a
// company, kept for WEBHOOK_RETENTION whether or not a delivery was made.
// A webhook sees an event as its payload would carry it: the event's data
// with the contact's fields the webhook's form data selects.

export interface EventRow {
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
export async function filteredEvents(
  ctx: RequestContext,
  webhook: EventReader,
  window: PageWindow,
): Promise<Page<StoredEventRecord>> {
  const where = 'e.company_id = $1 AND e.filtered_by @> ARRAY[$2::int]';
  const params = [await ctx.companyId(), webhook.id];
  const [{ total }] = await ctx.sql<{ total: number }>(
    `SELECT count(*)::int AS total FROM events e WHERE ${where}`,
    params,
  );
  const rows = await ctx.sql<EventRow>(
    `SELECT ${COLUMNS} FROM events e WHERE ${where} ORDER BY e.id DESC LIMIT ${window.perPage} OFFSET ${window.offset}`,
    params,
  );
  return pageOf(
    rows.map((row) => storedEventRecord(row, webhook)),
    total,
    window,
  );
}

// A notice is open while what it reports still holds (docs/adr/0051-notices-end-when-resolved.md):
// a delivery whose schedule ran out until it succeeds; a webhook switched off
// until it is active again; a failing one while it is active, still failing,
// and nothing newer was told of it; a recovery for a day, unless something
// newer was told. A deleted webhook's notices are closed.
const ABOUT_ITS_WEBHOOK = `w.id = (e.data->>'webhook_id')::int AND w.company_id = e.company_id`;
const NOTHING_NEWER = `NOT EXISTS (SELECT 1 FROM events l WHERE l.company_id = e.company_id AND l.type
  IN ('webhook.failing', 'webhook.disabled', 'webhook.recovered')
    AND l.subjects @> ARRAY['webhook:' || (e.data->>'webhook_id')] AND (l.occurred_at, l.id) > (e.occurred_at, e.id))`;
const STILL_OPEN = `EXISTS (SELECT 1 FROM webhooks w WHERE ${ABOUT_ITS_WEBHOOK} AND CASE e.type
    WHEN 'delivery.exhausted' THEN NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = e.data->>'delivery_id' AND d.status = 'succeeded')
    WHEN 'webhook.disabled' THEN NOT w.active
    WHEN 'webhook.failing' THEN w.active AND w.failing_since IS NOT NULL AND ${NOTHING_NEWER}
    ELSE e.occurred_at > now() - interval '1 day' AND ${NOTHING_NEWER} END)`;

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
  const where =
    'e.company_id = $1 AND e.type IN (SELECT json_array_elements_text($2::json)) AND ($3::text IS NULL OR e.subjects @> ARRAY[$3::text])' +
    (openOnly ? ` AND ${STILL_OPEN}` : '');
  const params = [
    await ctx.companyId(),
    JSON.stringify(OPERATOR_EVENTS),
    webhookId === null ? null : webhookSubject(webhookId),
  ];
  const [{ total }] = await ctx.sql<{ total: number }>(
    `SELECT count(*)::int AS total FROM events e WHERE ${where}`,
    params,
  );
  const rows = await ctx.sql<EventRow>(
    `SELECT ${COLUMNS} FROM events e WHERE ${where} ORDER BY e.id DESC LIMIT ${window.perPage} OFFSET ${window.offset}`,
    params,
  );
  return pageOf(
    rows.map((row) => storedEventRecord(row, { id: 0, formData: [] })),
    total,
    window,
  );
}

/** Read at a time while walking a window's missing events. */
const MISSING_BATCH = 1000;

// The events of the webhook's subscribed types in the window that it has no
// delivery of (operator events about the webhook itself aside), in the order
// they happened, a batch after the (time, id) given.
const MISSING = `SELECT ${COLUMNS} FROM events e
  WHERE e.company_id = $1 AND e.type IN (SELECT json_array_elements_text($2::json)) AND e.occurred_at >= $3 AND e.occurred_at <= $4
    AND (e.occurred_at, e.id) > ($5::timestamptz, $6::text)
    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = $7 AND d.event_id = e.id)
    AND NOT e.subjects @> ARRAY['webhook:' || $7::text]
  ORDER BY e.occurred_at, e.id LIMIT ${MISSING_BATCH}`;

/** Each batch of the events of `types` in [from, to] the webhook never had a delivery of, oldest first. */
export async function* missingEvents(
  ctx: RequestContext,
  webhookId: number,
  types: string[],
  from: Date,
  to: Date,
): AsyncGenerator<EventRow[]> {
  const company = await ctx.companyId();
  let after: [Date | string, string] = [new Date(0), ''];
  for (;;) {
    const rows = await ctx.sql<EventRow>(MISSING, [
      company,
      JSON.stringify(types),
      from,
      to,
      after[0],
      after[1],
      webhookId,
    ]);
    if (rows.length > 0) yield rows;
    if (rows.length < MISSING_BATCH) return;
    const last = rows[rows.length - 1];
    after = [last.occurred_at, last.id];
  }
}
