import { Entity, ManyToOne, PrimaryKey, Property, Unique, type Rel } from '@mikro-orm/core';
import { WebhookDelivery } from './webhook-delivery.entity.js';

// Kept for the schema and its migrations; written by the delivery engine (webhooks/settle.ts) and read in webhooks/delivery.service.ts.
/** One attempt of a delivery, recorded before the request and completed after it. */
@Entity({ tableName: 'webhook_attempts' })
@Unique({ properties: ['delivery', 'number'] })
export class WebhookAttempt {
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => WebhookDelivery, { deleteRule: 'cascade' })
  delivery!: Rel<WebhookDelivery>;

  @Property()
  number!: number;

  @Property({ length: 16 })
  trigger!: string;

  @Property({ type: 'datetime' })
  attemptedAt!: Date;

  /** When the attempt was due (its schedule's time); attempted_at - due_at is how late it went out. */
  @Property({ type: 'datetime', nullable: true })
  dueAt?: Date | null;

  /** When the result was recorded; null while in flight or when the worker died. */
  @Property({ type: 'datetime', nullable: true })
  finishedAt?: Date | null;

  @Property({ type: 'integer', nullable: true })
  statusCode?: number | null;

  @Property({ type: 'integer', nullable: true })
  durationMs?: number | null;

  /** The first 1 KiB of the response. */
  @Property({ type: 'text', nullable: true })
  responseBody?: string | null;

  @Property({ type: 'text', nullable: true })
  error?: string | null;

  /** The webhook's custom headers this attempt sent, by name only. */
  @Property({ type: 'json', nullable: true })
  headerNames?: string[] | null;
}
