import type { RequestContext } from '../context.js';
import { dbDate } from '../db/dates.js';
import { listen, type Listener } from '../db/listener.js';
import type { Logger } from '../observability/logger.js';
import type { DomainEvent, EventSink } from './recorder.js';

// Live events for GraphQL subscriptions. Each recorded event is written to
// event_log inside the unit of work that caused it and announced with NOTIFY
// (both take effect on commit, neither on rollback). Every API process
// LISTENs, reads the event by id and hands it to its own subscribers of that
// company: an event reaches every process, not only the one that made it.

export const LIVE_CHANNEL = 'live_events';
/** Events a slow subscriber may have waiting before it is cut off. */
const QUEUE_LIMIT = 1000;
export const LIVE_RETENTION = '1 hour';

export interface LiveEvent {
  id: string;
  type: string;
  occurredAt: Date;
  data: Record<string, unknown>;
  contact: Record<string, unknown> | null;
}

interface Subscriber {
  companyId: number;
  types: Set<string> | null;
  push(event: LiveEvent): void;
}

export class LiveEvents implements EventSink {
  private readonly subscribers = new Set<Subscriber>();
  private listener?: Listener;

  /** The outbox's sibling: inside the recording transaction. */
  async accept(ctx: RequestContext, event: DomainEvent): Promise<void> {
    const [row] = await ctx.sql<{ id: string }>(
      'INSERT INTO event_log (company_id, type, data, contact, occurred_at) VALUES (?, ?, ?, ?, ?) RETURNING id',
      [await ctx.companyId(), event.type, JSON.stringify(event.data), event.contact ? JSON.stringify(event.contact) : null, event.occurredAt],
    );
    await ctx.sql('SELECT pg_notify(?, ?)', [LIVE_CHANNEL, String(row.id)]);
  }

  /** Starts listening (API processes); `reader` gives a context that may read across companies. */
  start(databaseUrl: string, reader: () => RequestContext, log: Logger): void {
    const read = async (id: string): Promise<(LiveEvent & { companyId: number }) | undefined> => {
      const [row] = await reader().sql<{ id: string; company_id: number; type: string; data: Record<string, unknown>; contact: Record<string, unknown> | null; occurred_at: string }>(
        'SELECT id, company_id, type, data, contact, occurred_at FROM event_log WHERE id = ?',
        [id],
      );
      return row && { id: String(row.id), companyId: row.company_id, type: row.type, data: row.data, contact: row.contact, occurredAt: dbDate(row.occurred_at) };
    };
    this.listener = listen(databaseUrl, LIVE_CHANNEL, {
      onNotify: (payload) => {
        if (!payload || !/^\d+$/.test(payload) || this.subscribers.size === 0) return;
        void read(payload)
          .then((event) => {
            if (!event) return;
            for (const subscriber of this.subscribers) {
              if (subscriber.companyId === event.companyId && (!subscriber.types || subscriber.types.has(event.type))) subscriber.push(event);
            }
          })
          .catch((error) => log.warn('live event not read', { id: payload, error: (error as Error).message }));
      },
    }, log);
  }

  async stop(): Promise<void> {
    await this.listener?.stop();
  }

  /** The company's events (of `types`, or all) from now on, until the consumer stops. */
  subscribe(companyId: number, types: string[] | null): AsyncIterableIterator<LiveEvent> {
    const queue: LiveEvent[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    let overflow = false;
    const subscriber: Subscriber = {
      companyId,
      types: types ? new Set(types) : null,
      push: (event) => {
        if (queue.length >= QUEUE_LIMIT) overflow = true;
        else queue.push(event);
        wake?.();
      },
    };
    this.subscribers.add(subscriber);
    const finish = () => {
      done = true;
      this.subscribers.delete(subscriber);
      wake?.();
    };
    const iterator: AsyncIterableIterator<LiveEvent> = {
      [Symbol.asyncIterator]: () => iterator,
      next: async () => {
        for (;;) {
          if (overflow) {
            finish();
            throw new Error('The subscription fell too far behind and was closed; subscribe again.');
          }
          if (queue.length > 0) return { value: queue.shift()!, done: false };
          if (done) return { value: undefined, done: true };
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      },
      return: async () => {
        finish();
        return { value: undefined, done: true };
      },
    };
    return iterator;
  }

  /** How many subscriptions this process serves. */
  get size(): number {
    return this.subscribers.size;
  }
}
