import { Entity, OneToOne, type Opt, Property, type Rel } from '@mikro-orm/core';
import { Webhook } from './webhook.entity.js';

// What the engine counts of a webhook, updated on every attempt: kept apart from the webhook so its many small updates
// touch a narrow row (fillfactor 50, set in Migration20261126200000_webhook_counters: MikroORM has no table options).

@Entity({ tableName: 'webhook_counters' })
export class WebhookCounter {
  @OneToOne(() => Webhook, { primary: true, deleteRule: 'cascade', updateRule: 'cascade', owner: true })
  webhook!: Rel<Webhook>;

  @Property({ type: 'integer', default: 0 })
  hits: Opt<number> = 0;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lastHit?: Date | null;

  /** The rate limiter's bucket: tokens left and when they were counted. */
  @Property({ type: 'double', nullable: true })
  rateTokens?: number | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  rateCheckedAt?: Date | null;

  @Property({ type: 'integer', default: 0 })
  inFlight: Opt<number> = 0;
}
