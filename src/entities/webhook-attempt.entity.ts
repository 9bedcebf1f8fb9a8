import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/core';

// An attempt at a delivery, numbered in it. fillfactor 80 (the settle updates it in place) is set in
// Migration20261127210000_delivery_costs: MikroORM has no table options. No foreign key, as for the deliveries.

@Entity({ tableName: 'webhook_attempts' })
@Unique({ name: 'webhook_attempts_delivery_id_number_unique', properties: ['deliveryId', 'number'] })
export class WebhookAttempt {
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'string', length: 40 })
  deliveryId!: string;

  @Property({ type: 'integer' })
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
