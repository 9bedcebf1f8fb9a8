import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/** An event as the workflows' triggers and the activity feed read it, kept a while and swept by age. */
@Entity({ tableName: 'event_log' })
@Index({ name: 'event_log_occurred_at_index', properties: ['occurredAt'] })
export class EventLog {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @Property({ type: 'integer' })
  companyId!: number;

  @Property({ type: 'string', length: 64 })
  type!: string;

  @Property({ type: 'json' })
  data!: Record<string, unknown>;

  @Property({ type: 'json', nullable: true })
  contact?: Record<string, unknown> | null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  occurredAt!: Date;
}
