import { ArrayType, Entity, Index, ManyToOne, type Opt, PrimaryKey, Property, type Rel } from '@mikro-orm/core';
import { Company } from './company.entity.js';

// An event as it was emitted: what the events API, replay and the delivery engine read (docs/adr/0038-event-store.md).
// Its data is kept as `json`, the text as written (a delivery's bytes are built from it). `tx`, the transaction that
// wrote it, orders the feed (events_company_tx_index); `filtered_by` and `subjects` are searched through GIN indexes,
// written in Migration20261126090000_event_store_filters and Migration20261127210000_delivery_costs and declared here
// by name and statement. The table is partitioned by the range of its id, a ULID whose first characters are its time
// (Migration20261202050000_delivery_log_partitions).

@Entity({ tableName: 'events' })
@Index({ name: 'events_company_id_occurred_at_index', properties: ['company', 'occurredAt'] })
@Index({ name: 'events_occurred_at_index', properties: ['occurredAt'] })
@Index({ name: 'events_company_tx_index', properties: ['company', 'tx', 'id'] })
@Index({
  name: 'events_filtered_by_index',
  expression: 'create index "events_filtered_by_index" on "events" using gin ("filtered_by")',
})
@Index({
  name: 'events_subjects_index',
  expression: 'create index "events_subjects_index" on "events" using gin ("subjects")',
})
export class StoredEvent {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @ManyToOne(() => Company, { deleteRule: 'cascade', updateRule: 'cascade', index: false })
  company!: Rel<Company>;

  @Property({ type: 'string', length: 64 })
  type!: string;

  @Property({ type: 'json', columnType: 'json' })
  data!: Record<string, unknown>;

  @Property({ type: 'json', columnType: 'json', nullable: true })
  contact?: Record<string, unknown> | null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  occurredAt!: Date;

  @Property({ type: ArrayType, columnType: 'text[]', default: '{}' })
  subjects: Opt<string[]> = [];

  /** The webhooks whose filters left this event out. */
  @Property({ type: new ArrayType((id) => Number(id)), columnType: 'int[]', default: '{}' })
  filteredBy: Opt<number[]> = [];

  /** The writing transaction's id (`pg_current_xact_id()`, never written by the code), as text: a 64-bit number. */
  @Property({ type: 'string', columnType: 'xid8', defaultRaw: 'pg_current_xact_id()' })
  tx?: string;
}
