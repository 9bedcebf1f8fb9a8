import type { RequestContext } from '../context/request-context.js';
import { EventLog } from '../entities/event-log.entity.js';
import { type Listed, listed } from './common.js';

// The event log (live events too large for a notification's payload, read back by reference) and the live
// channel's notifications: statements written by hand, for they run in whatever unit of work records the event,
// the delivery engine's units of one statement included (which have no EntityManager).

export type LoggedEvent = Listed<EventLog, 'id' | 'companyId' | 'type' | 'data' | 'contact' | 'occurredAt'>;

export const eventLogRepository = {
  /** Keeps an event; its id. */
  async append(
    ctx: RequestContext,
    event: { companyId: number; type: string; data: unknown; contact: unknown; occurredAt: Date },
  ): Promise<string> {
    const [row] = await ctx.sql<{ id: string }>(
      'INSERT INTO event_log (company_id, type, data, contact, occurred_at) VALUES ($1, $2, $3, $4, $5) RETURNING id',
      [
        event.companyId,
        event.type,
        JSON.stringify(event.data),
        event.contact ? JSON.stringify(event.contact) : null,
        event.occurredAt,
      ],
    );
    return String(row.id);
  },

  async byId(ctx: RequestContext, id: string): Promise<LoggedEvent | undefined> {
    const rows = await ctx.sql<Record<string, unknown>>(
      'SELECT id, company_id, type, data, contact, occurred_at FROM event_log WHERE id = $1',
      [id],
    );
    return listed<EventLog, 'id' | 'companyId' | 'type' | 'data' | 'contact' | 'occurredAt'>(ctx, EventLog, rows)[0];
  },

  /** A notification on `channel`, sent with the unit of work's commit (PostgreSQL's NOTIFY is transactional). */
  async notify(ctx: RequestContext, channel: string, payload: string): Promise<void> {
    await ctx.sql('SELECT pg_notify($1, $2)', [channel, payload]);
  },
};
