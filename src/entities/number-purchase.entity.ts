import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

// Kept for the schema and its migrations; written and read with plain statements in services/number-purchase.service.ts.
/**
 * A number purchase at the provider, keyed by its single-use token. Written
 * (committed on its own) before the provider is called, so a failure after
 * the provider charged never loses the number: pending (asked, no answer
 * yet), bought (the provider answered, not yet recorded), completed
 * (recorded as a phone number), released (the provider refused; the token
 * may be used again).
 */
@Entity({ tableName: 'number_purchases' })
@Index({ properties: ['status', 'updatedAt'] })
export class NumberPurchase {
  @PrimaryKey({ length: 64 })
  jti!: string;

  @Property()
  companyId!: number;

  @Property({ length: 20 })
  phoneNo!: string;

  @Property({ length: 16 })
  status!: string;

  @Property({ length: 64, nullable: true })
  providerSid?: string | null;

  @Property({ length: 255, nullable: true })
  friendlyName?: string | null;

  @Property({ length: 32, nullable: true })
  phoneType?: string | null;

  @Property({ length: 32, nullable: true })
  accountBalance?: string | null;

  @Property({ type: 'datetime' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime' })
  updatedAt: Date = new Date();
}
