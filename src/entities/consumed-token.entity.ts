import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** A single-use token (purchase or import) that has been spent. */
@Entity({ tableName: 'consumed_tokens' })
export class ConsumedToken {
  @PrimaryKey({ length: 64 })
  jti!: string;

  @Property({ type: 'datetime' })
  consumedAt: Date = new Date();
}
