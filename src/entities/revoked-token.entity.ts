import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/** A signed-out token, kept until it would have expired (auth/tokens.ts). */
@Entity({ tableName: 'revoked_tokens' })
export class RevokedToken {
  @PrimaryKey({ type: 'string', length: 64 })
  jti!: string;

  @Index({ name: 'revoked_tokens_expires_at_index' })
  @Property({ type: 'datetime', columnType: 'timestamptz' })
  expiresAt!: Date;
}
