import { ulidFactory } from '../kernel/ulids.js';
import type { EventType } from './catalog.js';

// The seam between the services that cause events and whatever consumes
// them. Services record a domain event through their context; each sink
// (the webhook outbox is one) takes it inside the same unit of work, so a
// rolled-back change records nothing. The context type is the caller's
// (RequestContext), so this module depends on nothing above it.

/** The fields of the contact an event concerns (the webhook form data names). */
export type ContactFields = Record<string, unknown>;

export interface DomainEvent {
  /** evt_ + a ULID: the event's own id, kept by the event store. */
  id: string;
  type: EventType;
  /** The event's own data, without `contact`. */
  data: Record<string, unknown>;
  contact: ContactFields | null;
  occurredAt: Date;
}

export interface EventSink<Ctx> {
  /** Called inside the recording operation's unit of work; writes through `ctx`. */
  accept(ctx: Ctx, event: DomainEvent): Promise<void>;
  /** Many events of one type at once (an import's leads), where the sink can take them in fewer statements. */
  acceptMany?(ctx: Ctx, events: DomainEvent[]): Promise<void>;
  /**
   * A statement of the company's (`$1`) that every unit of work of a company writes with its BEGIN, at no round trip
   * of its own, for the sink to read when it accepts an event (`ctx.opening`): what the webhook outbox needs to know.
   */
  readonly opening?: string;
}

export class EventRecorder<Ctx> {
  constructor(
    private readonly ctx: Ctx,
    private readonly sinks: ReadonlyArray<EventSink<Ctx>>,
  ) {}

  async record(type: EventType, data: Record<string, unknown>, contact: ContactFields | null = null): Promise<void> {
    const event: DomainEvent = { id: newEventId(), type, data, contact, occurredAt: new Date() };
    for (const sink of this.sinks) await sink.accept(this.ctx, event);
  }

  /** Events of one type, each with its data and contact, recorded as `record` would one by one, in their order. */
  async recordMany(
    type: EventType,
    items: ReadonlyArray<{ data: Record<string, unknown>; contact: ContactFields | null }>,
  ): Promise<void> {
    if (items.length === 0) return;
    const occurredAt = new Date();
    const events = items.map(({ data, contact }) => ({ id: newEventId(), type, data, contact, occurredAt }));
    for (const sink of this.sinks) {
      if (sink.acceptMany) await sink.acceptMany(this.ctx, events);
      else for (const event of events) await sink.accept(this.ctx, event);
    }
  }
}

const ulid = ulidFactory();

/** An event id: evt_ + a ULID (sortable by time, unique). */
export const newEventId = () => `evt_${ulid()}`;
