import type { RequestContext } from '../../context/request-context.js';
import type { DomainEvent, EventSink } from '../../events/recorder.js';
import { newDeliveryId, payloadText, selectContact } from '../config/payload.js';
import { DueSignal } from './due-channel.js';
import { aboutWebhook, subjectsOf } from '../config/subjects.js';
import { filterOfText } from '../config/filters.js';
import { traceparentOf } from '../../observability/tracing.js';
import { LOCKS } from '../../db/locks.js';

// The transactional outbox: an event is kept in the event store and becomes
// one delivery row per active webhook of the company subscribed to it whose
// filter for the event's type (if any) accepts it (an operator event never
// goes to the webhook it is about), written in the transaction
// of the change that caused the event, at no round trip of its own
// (docs/adr/0092). The company's active webhooks are read by the unit of
// work's opening (SUBSCRIPTIONS, written with its BEGIN); the event and every
// delivery row, from a JSON array, by one statement written with the COMMIT
// (ctx.sqlAtCommit), after the writers' lock. Each statement is of fixed text
// and so prepared once per connection. Once the change has committed, the
// workers' pumps are woken (DueSignal).

export interface NewDelivery {
  id: string;
  webhookId: number;
  companyId: number;
  event: string;
  payload: string;
  trigger: string;
  due: Date;
  /** The stored event it delivers; none for a test send. */
  eventId?: string;
  /** The W3C traceparent of the request that caused it (tracing on), so its attempts join that trace. */
  traceParent?: string | null;
  /** For a webhook ordered per subject: the subject its attempts wait their turn on. */
  orderKey?: string | null;
}

interface SubscribedWebhook {
  id: number;
  form_data: string[];
  filter: string | null;
  ordering: string;
}

/** An active webhook of the company as the opening reads it: every event type it takes, each type's filter. */
interface ActiveWebhook {
  id: number;
  events: string[];
  form_data: string[];
  filters: Record<string, unknown> | null;
  ordering: string;
}

// The company's active webhooks, read with every unit of work's BEGIN (the outbox's opening).
const SUBSCRIPTIONS =
  'SELECT id, events, form_data, filters, ordering FROM webhooks WHERE company_id = $1 AND active ORDER BY id';

/** Events (and their deliveries) written by one statement of acceptMany. */
const MANY_BATCH = 1000;

/** Counts what the filters turned away, once the change has committed. */
export type FilteredCounter = (event: string, webhooks: number) => void;

// Where the unit of work has no opening (outside one): the subscribed webhooks read by a statement of their own.
// Each webhook's filter for the type comes as its JSON text: its predicate is made once per text (filters.ts).
// The company's webhooks are held against deletion from here until this transaction ends (WRITERS, below).
const SUBSCRIBED = `SELECT id, form_data, (filters -> $3::text)::text AS filter, ordering
  FROM (SELECT pg_advisory_xact_lock_shared(${LOCKS.webhookWriters}, $1::int)) AS held, webhooks
  WHERE company_id = $1 AND active AND events @> $2::jsonb ORDER BY id`;

/**
 * The delivery tables have no foreign keys (docs/adr/0074-delivery-tables-without-foreign-keys.md): a
 * delivery is written only while this transaction holds its company's webhooks against deletion (the lock,
 * taken in an earlier statement), for a webhook that still exists (the join, in the statement's own snapshot,
 * which is taken after the lock: a deletion that committed while the lock was awaited is seen).
 */
const WRITERS = `SELECT pg_advisory_xact_lock_shared(${LOCKS.webhookWriters}, company) FROM unnest($1::int[]) AS company`;

const INSERT_DELIVERIES = `INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status,
  payload, attempt_count, final_attempt, next_attempt_at, next_trigger, created_at, event_id, trace_parent, order_key)
  SELECT d.id, d.webhook_id, d.company_id, d.event, 'pending', d.payload, 0, 5, d.due, d.trigger, d.due,
    d.event_id, d.trace_parent, d.order_key
  FROM json_to_recordset($1::json) AS d(id text, webhook_id int, company_id int, event text, payload text,
    trigger text, due timestamptz, event_id text, trace_parent text, order_key text)
  WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id)`;

// The event kept (with the webhooks its filters turned away), and its deliveries.
const RECORD = `WITH kept AS (
  INSERT INTO events (id, company_id, type, data, contact, occurred_at, subjects, filtered_by)
  VALUES ($2, $3, $4, $5::json, $6::json, $7, ARRAY(SELECT json_array_elements_text($8::json)), ARRAY(SELECT json_array_elements_text($9::json)::int))
) ${INSERT_DELIVERIES}`;

// Many events of one type kept at once, and their deliveries (acceptMany).
const RECORD_MANY = `WITH kept AS (
  INSERT INTO events (id, company_id, type, data, contact, occurred_at, subjects, filtered_by)
  SELECT e.id, $2, $3, e.data, e.contact, e.occurred_at, ARRAY(SELECT json_array_elements_text(e.subjects)),
    ARRAY(SELECT json_array_elements_text(e.filtered_by)::int)
  FROM json_to_recordset($4::json) AS e(id text, data json, contact json, occurred_at timestamptz, subjects json,
    filtered_by json)
) ${INSERT_DELIVERIES}`;

// Each row keeps the traceparent of the request recording it (null when tracing is off): observability/tracing.ts.
const rowsOf = (ctx: RequestContext, deliveries: NewDelivery[], traceParent = traceparentOf(ctx.trace)) =>
  JSON.stringify(
    deliveries.map((d) => ({
      id: d.id,
      webhook_id: d.webhookId,
      company_id: d.companyId,
      event: d.event,
      payload: d.payload,
      trigger: d.trigger,
      due: d.due,
      event_id: d.eventId ?? null,
      trace_parent: d.traceParent ?? traceParent,
      order_key: d.orderKey ?? null,
    })),
  );

export class WebhookOutbox implements EventSink<RequestContext> {
  private readonly due = new DueSignal();
  readonly opening = SUBSCRIPTIONS;

  constructor(private readonly countFiltered: FilteredCounter = () => undefined) {}

  async accept(ctx: RequestContext, event: DomainEvent): Promise<void> {
    const company = await ctx.companyId();
    const webhooks = await this.subscribed(ctx, company, event.type, true);
    const { deliveries, filteredBy, subjects } = this.deliveriesOf(event, webhooks, company, new Date());
    await ctx.sqlAtCommit(RECORD, [
      rowsOf(ctx, deliveries),
      event.id,
      company,
      event.type,
      JSON.stringify(event.data),
      event.contact === null ? null : JSON.stringify(event.contact),
      event.occurredAt,
      JSON.stringify(subjects),
      JSON.stringify(filteredBy),
    ]);
    if (filteredBy.length > 0) ctx.afterCommit(() => this.countFiltered(event.type, filteredBy.length));
    if (deliveries.length > 0) this.afterCommit(ctx);
  }

  /** Events of one type: the subscribed webhooks read once, the events and their deliveries written a thousand at a time. */
  async acceptMany(ctx: RequestContext, events: DomainEvent[]): Promise<void> {
    if (events.length === 0) return;
    const company = await ctx.companyId();
    const type = events[0].type;
    const webhooks = await this.subscribed(ctx, company, type, false);
    const due = new Date();
    let filtered = 0;
    let delivered = 0;
    for (let start = 0; start < events.length; start += MANY_BATCH) {
      const rows: unknown[] = [];
      const deliveries: NewDelivery[] = [];
      for (const event of events.slice(start, start + MANY_BATCH)) {
        const made = this.deliveriesOf(event, webhooks, company, due);
        deliveries.push(...made.deliveries);
        filtered += made.filteredBy.length;
        rows.push({
          id: event.id,
          data: event.data,
          contact: event.contact,
          occurred_at: event.occurredAt,
          subjects: made.subjects,
          filtered_by: made.filteredBy,
        });
      }
      await ctx.sql(RECORD_MANY, [rowsOf(ctx, deliveries), company, type, JSON.stringify(rows)]);
      delivered += deliveries.length;
    }
    if (filtered > 0) ctx.afterCommit(() => this.countFiltered(type, filtered));
    if (delivered > 0) this.afterCommit(ctx);
  }

  /**
   * The company's webhooks subscribed to `type`, each with its filter for it: from the unit of work's opening, the
   * writers' lock then taken before the record (`lockAtCommit`: with the commit, the record going there too); else
   * read here, the lock taken first.
   */
  private async subscribed(
    ctx: RequestContext,
    company: number,
    type: string,
    lockAtCommit: boolean,
  ): Promise<SubscribedWebhook[]> {
    const opened = ctx.opening<ActiveWebhook>(SUBSCRIPTIONS);
    if (!opened) return ctx.sql<SubscribedWebhook>(SUBSCRIBED, [company, JSON.stringify([type]), type]);
    const active = await opened;
    if (lockAtCommit) await ctx.sqlAtCommit(WRITERS, [[company]]);
    else await ctx.sql(WRITERS, [[company]]);
    return active
      .filter((webhook) => webhook.events.includes(type))
      .map(({ id, form_data, filters, ordering }) => {
        const filter = filters?.[type];
        return {
          id,
          form_data,
          ordering,
          filter: filter === undefined || filter === null ? null : JSON.stringify(filter),
        };
      });
  }

  /** The event's delivery to each subscribed webhook whose filter takes it, the webhooks whose filter did not, its subjects. */
  private deliveriesOf(
    event: DomainEvent,
    webhooks: SubscribedWebhook[],
    company: number,
    due: Date,
  ): { deliveries: NewDelivery[]; filteredBy: number[]; subjects: string[] } {
    const subjects = subjectsOf(event);
    const filteredBy: number[] = [];
    const deliveries: NewDelivery[] = [];
    const about = aboutWebhook(event);
    let whole: Record<string, unknown> | undefined;
    for (const webhook of webhooks) {
      if (webhook.id === about) continue;
      if (
        webhook.filter !== null &&
        !filterOfText(webhook.filter)((whole ??= { ...event.data, contact: event.contact }))
      ) {
        filteredBy.push(webhook.id);
        continue;
      }
      deliveries.push({
        id: newDeliveryId(),
        webhookId: webhook.id,
        companyId: company,
        event: event.type,
        payload: payloadText({
          event: event.type,
          occurredAt: event.occurredAt,
          webhookId: webhook.id,
          data: event.data,
          contact: selectContact(event.contact, webhook.form_data),
        }),
        trigger: 'scheduled',
        due,
        eventId: event.id,
        // The subject the event is first about (its call, campaign, agent or contact): subjects.ts.
        orderKey: webhook.ordering === 'subject' ? (subjects[0] ?? null) : null,
      });
    }
    return { deliveries, filteredBy, subjects };
  }

  /** Delivery rows due now (also for test sends); the pumps are woken once they commit. */
  async insert(ctx: RequestContext, deliveries: NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await ctx.sql(WRITERS, [[...new Set(deliveries.map((d) => d.companyId))]]);
    await ctx.sql(INSERT_DELIVERIES, [rowsOf(ctx, deliveries)]);
    this.afterCommit(ctx);
  }

  /** Once the change commits (never for a rollback), its due deliveries' first attempts go out: the pumps are woken. */
  afterCommit(ctx: RequestContext): void {
    this.due.ring(ctx);
  }
}
