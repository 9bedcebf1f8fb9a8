import type { RequestContext } from '../../context/request-context.js';
import { eventStoreRepository } from '../../repositories/event-store.repository.js';
import { GoneError, ValidationError } from '../../kernel/errors.js';
import { LIST_SELECTIONS } from '../config/payload.js';
import { storedEventRecord, type StoredEventRecord } from './event-store.js';

// The events API (docs/adr/0063-the-events-api.md): every event of the
// company, oldest first after a cursor, for consumers who pull instead of
// taking deliveries. Events are read in the order of the transactions that
// wrote them, and only below the oldest transaction still running: an event
// committed late by a long transaction is not passed by a cursor that moved
// on before it committed, so a consumer that follows the cursor sees every
// event once.

export const FEED_LIMITS = { default: 50, max: 100 } as const;

/** docs/webhooks.md's section on it (src/webhooks/config/docs.ts). */
export const EVENT_FEED_DOC = `## Pulling events (GET /api/events)

A consumer that cannot take deliveries (behind a firewall, or a batch job)
reads the same events from the event store, as Stripe's \`/v1/events\`:

\`\`\`
GET /api/events?after=CURSOR&types=call.started,call.ended&limit=100
{ "has_more": false, "next_cursor": "WyI4MTIi...", "data": [
  { "id": "evt_01J...", "event": "call.started", "timestamp": "...", "data": { ..., "contact": { ... } } } ] }
\`\`\`

- Every event of the company, operator events too, oldest first after the
  cursor; without \`after\`, from the oldest kept. \`types\` (comma-separated or
  repeated) keeps only those types; \`limit\` is ${FEED_LIMITS.default} by default, at most ${FEED_LIMITS.max}.
- Each event carries the \`event\`, \`timestamp\` and \`data\` a delivery
  carries, with every contact field (a webhook's \`All\` selection), and its
  \`id\` (a delivery's \`event_id\`).
- Keep \`next_cursor\` and poll with it: an empty page gives the same cursor
  back. A cursor stays valid for \`WEBHOOK_RETENTION\`; an older one answers
  410 (GraphQL: code \`GONE\`), and the consumer starts again without it.
- No event is skipped: an event appears once every transaction older than its
  own has ended, so one committed late never lands behind a cursor that has
  moved on. The cost is that a long writing transaction anywhere on the
  database server holds the feed back while it runs (the API's are short;
  a backup's reads are not writing transactions and hold nothing back).
- GraphQL: \`events(after, types, limit) { nodes { id event occurredAt data }
  pageInfo { hasNextPage endCursor } }\`. Requires \`view-webhooks\`.
`;

/** Where a consumer is: after the event of transaction `tx` and id `id`, which happened at `at` (ms). */
interface FeedCursor {
  tx: string;
  id: string;
  at: number;
}

/** The start of the feed: before every event kept. */
const START: FeedCursor = { tx: '0', id: '', at: 0 };

/** Cursors are opaque to clients: base64url of the JSON [tx, id, at]. */
const encode = (cursor: FeedCursor) =>
  Buffer.from(JSON.stringify([cursor.tx, cursor.id, cursor.at])).toString('base64url');

function decode(text: string): FeedCursor {
  try {
    if (text.length <= 200 && /^[A-Za-z0-9_-]+$/.test(text)) {
      const [tx, id, at] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
      if (typeof tx === 'string' && /^\d{1,20}$/.test(tx) && typeof id === 'string' && id.length <= 40)
        if (Number.isSafeInteger(at) && (at as number) >= 0) return { tx, id, at: at as number };
    }
  } catch {
    // reported below
  }
  throw ValidationError.field(
    'after',
    `The after field is not a cursor GET /api/events gave (got "${text.slice(0, 60)}").`,
  );
}

export interface EventFeedArgs {
  after?: string | null;
  types?: string[] | null;
  limit?: number | null;
}

export interface EventFeedPage {
  nodes: StoredEventRecord[];
  pageInfo: { hasNextPage: boolean; endCursor: string };
}

/** A reader of the events feed: every contact field is carried (the All selection of a webhook's form data). */
const EVERY_FIELD = { id: 0, formData: [...LIST_SELECTIONS.All] };

export class EventFeedService {
  constructor(private readonly retentionMs: number) {}

  async feed(ctx: RequestContext, { after, types, limit: asked }: EventFeedArgs): Promise<EventFeedPage> {
    const limit = asked ?? FEED_LIMITS.default;
    if (!Number.isInteger(limit) || limit < 1 || limit > FEED_LIMITS.max)
      throw ValidationError.field('limit', `The limit field must be between 1 and ${FEED_LIMITS.max} (got ${limit}).`);
    const cursor = after ? decode(after) : START;
    if (cursor !== START && cursor.at < Date.now() - this.retentionMs)
      throw new GoneError(
        `The cursor is older than the event retention (WEBHOOK_RETENTION, ${Math.round(this.retentionMs / 86_400_000)} days): ` +
          'events after it may have been deleted. Start again without after.',
      );
    const rows = await eventStoreRepository.feed(ctx, cursor, types && types.length > 0 ? types : null, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      nodes: page.map((row) => storedEventRecord(row, EVERY_FIELD)),
      pageInfo: {
        hasNextPage: rows.length > limit,
        endCursor: last
          ? encode({ tx: last.tx, id: last.id, at: last.occurredAt.getTime() })
          : (after ?? encode(START)),
      },
    };
  }
}
