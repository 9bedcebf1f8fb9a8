import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/** A signed-out token (by its jti), kept until it would have expired anyway. */
@Entity({ tableName: 'revoked_tokens' })
export class RevokedToken {
  @PrimaryKey({ length: 64 })
  jti!: string;

  @Property({ type: 'datetime' })
  @Index()
  expiresAt!: Date;
}
