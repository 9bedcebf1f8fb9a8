import { Entity, ManyToOne, PrimaryKey, Property, type Rel } from '@mikro-orm/core';
import { Webhook } from './webhook.entity.js';

/** A request relayed to a `listen` client, and its answer once the client gives it. */
@Entity({ tableName: 'listen_exchanges' })
export class ListenExchange {
  @PrimaryKey({ type: 'string', length: 64 })
  key!: string;

  @ManyToOne(() => Webhook, {
    deleteRule: 'cascade',
    updateRule: 'cascade',
    index: 'listen_exchanges_webhook_id_index',
  })
  webhook!: Rel<Webhook>;

  @Property({ type: 'integer' })
  companyId!: number;

  @Property({ type: 'json' })
  request!: Record<string, unknown>;

  @Property({ type: 'integer', nullable: true })
  status?: number | null;

  @Property({ type: 'string', length: 255, nullable: true })
  error?: string | null;

  @Property({ type: 'string', length: 1024, nullable: true })
  responseBody?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  answeredAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', defaultRaw: 'now()' })
  createdAt!: Date;
}
