import type { RequestContext } from '../context/request-context.js';
import { type PageWindow, readCountedPage } from '../db/reads.js';
import { StoredEvent } from '../entities/stored-event.entity.js';
import { type Listed, listed } from './common.js';

// The event store's reads (the delivery engine's outbox writes it): every domain event of a company, kept for
// WEBHOOK_RETENTION whether or not a delivery was made. Each read is one statement: the pages of the Webhooks page,
// the events a replay would send, and the events API's feed in the order of the transactions that wrote them.

/** What an event is read with. */
export type EventRow = Listed<StoredEvent, 'id' | 'type' | 'data' | 'contact' | 'occurredAt'>;

const COLUMNS = 'e.id, e.type, e.data, e.contact, e.occurred_at';

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

/** Read at a time while walking a window's missing events. */
const MISSING_BATCH = 1000;

// The events of the webhook's subscribed types in the window that it has no
// delivery of (operator events about the webhook itself aside), in the order
// they happened, a batch after the (time, id) given.
const MISSING = `SELECT ${COLUMNS}, e.occurred_at::text AS "cursorAt" FROM events e
  WHERE e.company_id = $1 AND e.type IN (SELECT json_array_elements_text($2::json)) AND e.occurred_at >= $3 AND e.occurred_at <= $4
    AND (e.occurred_at, e.id) > ($5::timestamptz, $6::text)
    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = $7 AND d.event_id = e.id)
    AND NOT e.subjects @> ARRAY['webhook:' || $7::text]
  ORDER BY e.occurred_at, e.id LIMIT ${MISSING_BATCH}`;

// The company's events after the cursor in the order of their transactions, each of a transaction older than
// every one still running (pg_snapshot_xmin): no event can later appear before the end of a page.
const FEED = `SELECT ${COLUMNS}, e.tx::text AS tx FROM events e
  WHERE e.company_id = $1 AND (e.tx, e.id) > ($2::xid8, $3::text) AND e.tx < pg_snapshot_xmin(pg_current_snapshot())
    AND ($4::text[] IS NULL OR e.type = ANY ($4::text[]))
  ORDER BY e.tx, e.id LIMIT $5`;

/** A page of events newest first (`where` over `e`), and their total. */
async function newestFirst(
  ctx: RequestContext,
  where: string,
  params: unknown[],
  window: PageWindow,
): Promise<[EventRow[], number]> {
  const { rows, total } = await readCountedPage<Record<string, unknown>>(
    ctx,
    { select: COLUMNS, from: 'events e', where, orderBy: 'e.id DESC', params },
    window,
  );
  return [listed(ctx, StoredEvent, rows), total];
}

export const eventStoreRepository = {
  /** The company's events that the webhook's filters turned away, newest first. */
  async filteredBy(ctx: RequestContext, webhookId: number, window: PageWindow): Promise<[EventRow[], number]> {
    return newestFirst(
      ctx,
      'e.company_id = $1 AND e.filtered_by @> ARRAY[$2::int]',
      [await ctx.companyId(), webhookId],
      window,
    );
  },

  /**
   * The company's events of these types (the operator events), newest first: every one, or those about one subject
   * (a webhook's); `openOnly`: those whose news still holds.
   */
  async notices(
    ctx: RequestContext,
    types: readonly string[],
    subject: string | null,
    window: PageWindow,
    openOnly: boolean,
  ): Promise<[EventRow[], number]> {
    const where =
      'e.company_id = $1 AND e.type IN (SELECT json_array_elements_text($2::json)) AND ($3::text IS NULL OR e.subjects @> ARRAY[$3::text])' +
      (openOnly ? ` AND ${STILL_OPEN}` : '');
    return newestFirst(ctx, where, [await ctx.companyId(), JSON.stringify(types), subject], window);
  },

  /** Each batch of the events of `types` in [from, to] the webhook never had a delivery of, oldest first. */
  async *missing(
    ctx: RequestContext,
    webhookId: number,
    types: string[],
    from: Date,
    to: Date,
  ): AsyncGenerator<EventRow[]> {
    const company = await ctx.companyId();
    // The cursor keeps the time as PostgreSQL wrote it: a Date would drop its microseconds and read a row twice.
    let after: [Date | string, string] = [new Date(0), ''];
    for (;;) {
      const rows = await ctx.sql<Record<string, unknown>>(MISSING, [
        company,
        JSON.stringify(types),
        from,
        to,
        after[0],
        after[1],
        webhookId,
      ]);
      const events = listed<StoredEvent, 'id' | 'type' | 'data' | 'contact' | 'occurredAt', { cursorAt: string }>(
        ctx,
        StoredEvent,
        rows,
        ['cursorAt'],
      );
      if (events.length > 0) yield events;
      if (events.length < MISSING_BATCH) return;
      const last = events[events.length - 1];
      after = [last.cursorAt, last.id];
    }
  },

  /** At most `limit` of the company's events after (tx, id) in the order of their transactions, of `types` or all. */
  async feed(
    ctx: RequestContext,
    after: { tx: string; id: string },
    types: string[] | null,
    limit: number,
  ): Promise<Array<EventRow & { tx: string }>> {
    const rows = await ctx.sql<Record<string, unknown>>(FEED, [
      await ctx.companyId(),
      after.tx,
      after.id,
      types,
      limit,
    ]);
    return listed<StoredEvent, 'id' | 'type' | 'data' | 'contact' | 'occurredAt', { tx: string }>(
      ctx,
      StoredEvent,
      rows,
      ['tx'],
    );
  },
};
