import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

// Kept for the schema and its migrations; counted with plain statements in services/rate-limiter.ts.
/** One fixed-window counter of sign-in attempts (key "ip:..." or "email:..."). */
@Entity({ tableName: 'login_attempts' })
export class LoginAttempt {
  @PrimaryKey({ length: 320 })
  key!: string;

  @Property({ type: 'datetime' })
  windowStart!: Date;

  @Property()
  count!: number;
}
