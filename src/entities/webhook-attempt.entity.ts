import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

// An attempt at a delivery, numbered in it: its key is (delivery, number). The table is partitioned by its
// delivery's id, as the deliveries are by theirs (Migration20261202050000_delivery_log_partitions; MikroORM has no
// partitions nor table options: fillfactor 80, since the settle updates an attempt in place, is each partition's).
// No foreign key, as for the deliveries.

@Entity({ tableName: 'webhook_attempts' })
export class WebhookAttempt {
  @PrimaryKey({ type: 'string', length: 40 })
  deliveryId!: string;

  @PrimaryKey({ type: 'integer', autoincrement: false })
  number!: number;

  /** kernel/vocabulary.ts ATTEMPT_TRIGGERS. */
  @Property({ type: 'string', length: 16 })
  trigger!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  attemptedAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  dueAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  finishedAt?: Date | null;

  @Property({ type: 'integer', nullable: true })
  statusCode?: number | null;

  @Property({ type: 'integer', nullable: true })
  durationMs?: number | null;

  @Property({ type: 'text', nullable: true })
  responseBody?: string | null;

  @Property({ type: 'text', nullable: true })
  error?: string | null;

  /** The names of the response's headers, kept for the attempt's record. */
  @Property({ type: 'json', nullable: true })
  headerNames?: string[] | null;
}
