import { Entity, OneToOne, Property, type Rel } from '@mikro-orm/core';
import { Webhook } from './webhook.entity.js';

/** A `listen` client attached to a webhook, alive while it keeps renewing (listen/). */
@Entity({ tableName: 'listen_sessions' })
export class ListenSession {
  @OneToOne(() => Webhook, { primary: true, deleteRule: 'cascade', updateRule: 'cascade', owner: true })
  webhook!: Rel<Webhook>;

  @Property({ type: 'integer' })
  companyId!: number;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  aliveUntil!: Date;
}
