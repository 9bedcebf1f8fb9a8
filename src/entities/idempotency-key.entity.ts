import { Entity, Index, ManyToOne, PrimaryKey, Property, type Rel } from '@mikro-orm/core';
import { Company } from './company.entity.js';

/** A mutation's answer kept under the key its caller sent, for a day (db/idempotency.ts). */
@Entity({ tableName: 'idempotency_keys' })
@Index({ name: 'idempotency_keys_created_at_index', properties: ['createdAt'] })
export class IdempotencyKey {
  @ManyToOne(() => Company, { primary: true, deleteRule: 'cascade', updateRule: 'cascade' })
  company!: Rel<Company>;

  @PrimaryKey({ type: 'string', length: 255 })
  key!: string;

  /** The request's digest: the same key with another request is refused. */
  @Property({ type: 'string', length: 64 })
  fingerprint!: string;

  @Property({ type: 'integer' })
  status!: number;

  @Property({ type: 'text' })
  body!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt!: Date;
}
