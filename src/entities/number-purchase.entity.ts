import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

// A number bought under a purchase token (its jti): the purchase is idempotent per token, and one left pending by a
// crash is finished or released by a job (services/number-purchase.service.ts). No foreign key: the record outlives nothing
// it names, and is swept by status and age.

@Entity({ tableName: 'number_purchases' })
@Index({ name: 'number_purchases_status_updated_at_index', properties: ['status', 'updatedAt'] })
export class NumberPurchase {
  @PrimaryKey({ type: 'string', length: 64 })
  jti!: string;

  @Property({ type: 'integer' })
  companyId!: number;

  @Property({ type: 'string', length: 20 })
  phoneNo!: string;

  @Property({ type: 'string', length: 16 })
  status!: string;

  @Property({ type: 'string', length: 64, nullable: true })
  providerSid?: string | null;

  @Property({ type: 'string', length: 255, nullable: true })
  friendlyName?: string | null;

  @Property({ type: 'string', length: 32, nullable: true })
  phoneType?: string | null;

  @Property({ type: 'string', length: 32, nullable: true })
  accountBalance?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt!: Date;
}
