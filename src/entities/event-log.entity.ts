import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

// Kept for the schema and its migrations; written and read with plain statements in events/live.ts.
/** A recent domain event too large to travel in a NOTIFY payload (src/events/live.ts); kept an hour. */
@Entity({ tableName: 'event_log' })
@Index({ properties: ['occurredAt'] })
export class EventLog {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @Property()
  companyId!: number;

  @Property({ length: 64 })
  type!: string;

  @Property({ type: 'json' })
  data!: Record<string, unknown>;

  @Property({ type: 'json', nullable: true })
  contact?: Record<string, unknown> | null;

  @Property({ type: 'datetime' })
  occurredAt!: Date;
}
