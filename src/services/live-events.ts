import { ulid } from 'ulid';
import { changeConcerns, type ViewerChange } from '../auth/viewer-cache.js';
import type { RequestContext, Viewer } from '../context/request-context.js';
import { eventLogRepository } from '../repositories/event-log.repository.js';
import { listen, type Listener } from '../db/listener.js';
import { errorFields, type Logger } from '../observability/logger.js';
import type { DomainEvent, EventSink } from '../events/recorder.js';
import { type PushStream, pushStream } from '../events/stream.js';

// Live events for GraphQL subscriptions. Each recorded event is announced
// with NOTIFY inside the unit of work that caused it (it goes out on commit,
// never on rollback). The notification carries the event itself; one too
// large for NOTIFY (8,000 bytes: a long transcript) is written to event_log
// and the notification carries its id. Every API process LISTENs and hands
// the event to its own subscribers of that company: an event reaches every
// process, not only the one that made it.

export const LIVE_CHANNEL = 'live_events';
/** Where API processes say whether they have subscribers (so the others know whether to announce events at all). */
export const PRESENCE_CHANNEL = 'live_presence';
const PRESENCE_REFRESH_MS = 30_000;
const PRESENCE_TTL_MS = 75_000;
/** By when the other API processes have heard of a new subscriber (a NOTIFY away), with room to spare. */
const PRESENCE_HEARD_MS = 1000;
/** Events a slow subscriber may have waiting before it is cut off. */
const QUEUE_LIMIT = 1000;
export const LIVE_RETENTION = '1 hour';
/** PostgreSQL's NOTIFY payload limit is 8,000 bytes; larger events go through event_log. */
const NOTIFY_LIMIT = 7_900;

export interface LiveEvent {
  id: string;
  type: string;
  occurredAt: Date;
  data: Record<string, unknown>;
  contact: Record<string, unknown> | null;
}

/** One turn of a call's live transcript: not a webhook event, only for subscribers of that call. */
export interface TranscriptTurn {
  callId: number;
  sequence: number;
  speaker: string;
  text: string;
  at: Date;
}

/** Who holds a subscription, and how to ask again whether they still may. */
export interface SubscriptionGuard {
  viewer: Viewer;
  /** Resolves while the holder may still subscribe; rejects with the error that ends the subscription. */
  recheck(): Promise<void>;
}

interface Subscriber {
  companyId: number;
  types: Set<string> | null;
  /** A transcript subscriber: the turns of this call, and no events. */
  callId?: number;
  guard?: SubscriptionGuard;
  push(item: LiveEvent | TranscriptTurn): void;
  end(error: Error): void;
}

export class LiveEvents implements EventSink<RequestContext> {
  private readonly subscribers = new Set<Subscriber>();
  private listener?: Listener;
  private presenceListener?: Listener;
  private started = false;
  private readonly instance = ulid();
  /** Other processes with subscribers, until when their word holds. */
  private readonly remote = new Map<string, number>();
  private announce: (active: boolean) => void = () => undefined;
  private refresh?: NodeJS.Timeout;

  /**
   * Whether anyone, in any API process, subscribes now. When nobody does, events
   * are not announced at all (it costs every transaction a statement). A
   * process that does not serve subscriptions (a worker) always announces.
   */
  get wanted(): boolean {
    if (!this.started || this.subscribers.size > 0) return true;
    const now = Date.now();
    for (const [instance, until] of this.remote) {
      if (until > now) return true;
      this.remote.delete(instance);
    }
    return false;
  }

  /** The outbox's sibling: inside the recording transaction. */
  async accept(ctx: RequestContext, event: DomainEvent): Promise<void> {
    if (!this.wanted) return;
    const companyId = await ctx.companyId();
    const whole = JSON.stringify({
      id: ulid(),
      companyId,
      type: event.type,
      data: event.data,
      contact: event.contact,
      occurredAt: event.occurredAt,
    });
    // Through the event log's repository, whose statements run in the recording unit of work (the delivery engine's too).
    if (Buffer.byteLength(whole) <= NOTIFY_LIMIT) return eventLogRepository.notify(ctx, LIVE_CHANNEL, whole);
    const ref = await eventLogRepository.append(ctx, { companyId, ...event });
    await eventLogRepository.notify(ctx, LIVE_CHANNEL, JSON.stringify({ ref }));
  }

  /** An import's events: nothing to do while nobody subscribes, else each as `accept` announces it. */
  async acceptMany(ctx: RequestContext, events: DomainEvent[]): Promise<void> {
    if (!this.wanted) return;
    for (const event of events) await this.accept(ctx, event);
  }

  /** Announces a transcript turn to the call's subscribers in every process, at the commit of ctx's unit of work. */
  async publishTurn(ctx: RequestContext, turn: TranscriptTurn): Promise<void> {
    if (!this.wanted) return;
    await eventLogRepository.notify(ctx, LIVE_CHANNEL, JSON.stringify({ companyId: await ctx.companyId(), turn }));
  }

  /**
   * Starts listening (API processes). `reader` gives a context that may read
   * across companies; `notify` sends on a channel outside any transaction.
   */
  start(
    databaseUrl: string,
    reader: () => RequestContext,
    notify: (channel: string, payload: string) => Promise<unknown>,
    log: Logger,
  ): void {
    this.started = true;
    const say = (message: object) =>
      void notify(PRESENCE_CHANNEL, JSON.stringify(message)).catch((error) =>
        log.warn('live presence not sent', errorFields(error)),
      );
    this.announce = (active) => say({ instance: this.instance, active });
    this.presenceListener = listen(
      databaseUrl,
      PRESENCE_CHANNEL,
      {
        onNotify: (payload) => {
          let message: { instance?: string; active?: boolean; hello?: string };
          try {
            message = JSON.parse(payload ?? '');
          } catch {
            return;
          }
          if (message.hello && message.hello !== this.instance && this.subscribers.size > 0) this.announce(true);
          if (!message.instance || message.instance === this.instance) return;
          if (message.active) this.remote.set(message.instance, Date.now() + PRESENCE_TTL_MS);
          else this.remote.delete(message.instance);
        },
        // After every (re)connect: who has subscribers now?
        onListening: () => say({ hello: this.instance }),
      },
      log,
    );
    this.refresh = setInterval(() => this.subscribers.size > 0 && this.announce(true), PRESENCE_REFRESH_MS);
    this.refresh.unref();
    const read = async (id: string): Promise<(LiveEvent & { companyId: number }) | undefined> => {
      const event = await eventLogRepository.byId(reader(), id);
      return event && { ...event, id: String(event.id), contact: event.contact ?? null };
    };
    this.listener = listen(
      databaseUrl,
      LIVE_CHANNEL,
      {
        onNotify: (payload) => {
          if (!payload || this.subscribers.size === 0) return;
          let message:
            | (Omit<LiveEvent, 'occurredAt'> & { companyId: number; occurredAt: string })
            | { ref: string }
            | { companyId: number; turn: TranscriptTurn & { at: string } };
          try {
            message = JSON.parse(payload);
          } catch {
            return;
          }
          if ('turn' in message) {
            const turn = { ...message.turn, at: new Date(message.turn.at) };
            for (const subscriber of this.subscribers)
              if (subscriber.companyId === message.companyId && subscriber.callId === turn.callId)
                subscriber.push(turn);
            return;
          }
          const event =
            'ref' in message
              ? read(message.ref)
              : Promise.resolve({ ...message, occurredAt: new Date(message.occurredAt) });
          void event
            .then((found) => {
              if (!found) return;
              for (const subscriber of this.subscribers) {
                if (
                  subscriber.companyId === found.companyId &&
                  subscriber.callId === undefined &&
                  (!subscriber.types || subscriber.types.has(found.type))
                )
                  subscriber.push(found);
              }
            })
            .catch((error) => log.warn('live event not read', errorFields(error)));
        },
      },
      log,
    );
  }

  async stop(): Promise<void> {
    clearInterval(this.refresh);
    if (this.subscribers.size > 0) this.announce(false);
    await this.listener?.stop();
    await this.presenceListener?.stop();
  }

  /**
   * A change to who may do what (logout, a role or its permissions, the user,
   * the company): every subscription it concerns asks again, and ends with
   * the error when its holder may no longer subscribe.
   */
  viewerChanged(change: ViewerChange, log: Logger): void {
    for (const subscriber of this.subscribers) {
      const { guard } = subscriber;
      if (!guard || !changeConcerns(change, guard.viewer)) continue;
      guard.recheck().catch((error: Error) => {
        subscriber.end(error);
        log.info('subscription ended: its holder may no longer subscribe', {
          userId: guard.viewer.user.id,
          reason: error.message,
        });
      });
    }
  }

  /** The company's events (of `types`, or all) from now on, until the consumer stops or the guard's re-check fails. */
  subscribe(companyId: number, types: string[] | null, guard?: SubscriptionGuard): AsyncIterableIterator<LiveEvent> {
    return this.stream<LiveEvent>({ companyId, types: types ? new Set(types) : null, guard }).iterator;
  }

  /**
   * The turns of one call of the company's live transcript from now on, on the same terms. With `past` (the turns
   * kept so far after a point), those are read once the subscriber is registered, and again once the other processes
   * have heard of it (PRESENCE_HEARD_MS): a turn kept before either is among them, one kept after is announced. Each
   * turn goes once, by its sequence; a failed read ends the subscription with an error.
   */
  transcript(
    companyId: number,
    callId: number,
    guard?: SubscriptionGuard,
    past?: () => Promise<TranscriptTurn[]>,
  ): AsyncIterableIterator<TranscriptTurn> {
    const sent = new Set<number>();
    let ended = false;
    const once = (turn: TranscriptTurn) => {
      if (sent.has(turn.sequence)) return false;
      sent.add(turn.sequence);
      return true;
    };
    const { iterator, push, fail } = this.stream<TranscriptTurn>(
      { companyId, types: null, callId, guard },
      once,
      () => (ended = true),
    );
    if (past) {
      const read = async () => {
        if (!ended) for (const turn of await past()) if (once(turn)) push(turn);
      };
      void read()
        .then(() => new Promise((resolve) => setTimeout(resolve, PRESENCE_HEARD_MS).unref()))
        .then(read)
        .catch(() => fail(new Error('The transcript so far could not be read; subscribe again.')));
    }
    return iterator;
  }

  /** A subscriber's stream: `keep` decides which announced items it gets; `onEnd` runs when it ends. */
  private stream<T>(
    who: Pick<Subscriber, 'companyId' | 'types' | 'callId' | 'guard'>,
    keep: (item: T) => boolean = () => true,
    onEnd: () => void = () => undefined,
  ): PushStream<T> {
    const stream = pushStream<T>(
      QUEUE_LIMIT,
      'The subscription fell too far behind and was closed; subscribe again.',
      () => {
        onEnd();
        this.subscribers.delete(subscriber);
        if (this.subscribers.size === 0) this.announce(false);
      },
    );
    const subscriber: Subscriber = {
      ...who,
      push: (item) => keep(item as T) && stream.push(item as T),
      end: (error) => stream.fail(error),
    };
    this.subscribers.add(subscriber);
    if (this.subscribers.size === 1) this.announce(true);
    return stream;
  }

  /** How many subscriptions this process serves. */
  get size(): number {
    return this.subscribers.size;
  }
}
