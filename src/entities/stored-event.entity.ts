import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

// Kept for the schema and its migrations; written by the webhook outbox and read with plain statements (webhooks/events.ts).
/**
 * A domain event of a company, kept for WEBHOOK_RETENTION whether or not a
 * delivery was made: what replay-missing sends, and which webhooks' filters
 * turned it away.
 */
@Entity({ tableName: 'events' })
@Index({ properties: ['companyId', 'occurredAt'] })
@Index({ properties: ['occurredAt'] })
@Index({
  name: 'events_filtered_by_index',
  expression: 'create index "events_filtered_by_index" on "events" using gin ("filtered_by")',
})
export class StoredEvent {
  /** evt_ + a ULID. */
  @PrimaryKey({ length: 40 })
  id!: string;

  @Property()
  companyId!: number;

  @Property({ length: 64 })
  type!: string;

  /** The event's data without its contact, as JSON text (its keys in their order). */
  @Property({ columnType: 'json', type: 'json' })
  data!: Record<string, unknown>;

  /** Every field of the contact it concerns; null when none. */
  @Property({ columnType: 'json', type: 'json', nullable: true })
  contact?: Record<string, unknown> | null;

  @Property({ type: 'datetime' })
  occurredAt!: Date;

  @Property({ type: 'text[]', default: '{}' })
  subjects: string[] = [];

  /** The webhooks subscribed to the event whose filters turned it away. */
  @Property({ type: 'int[]', default: '{}' })
  filteredBy: number[] = [];
}
