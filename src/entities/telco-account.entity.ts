import { Entity, OneToOne, PrimaryKey, Property, type Rel } from '@mikro-orm/core';
import { Company } from './company.entity.js';
import { Timestamped } from './timestamps.js';

/** The company's account at the telephony provider. The token is stored sealed under APP_KEY and never returned. */
@Entity({ tableName: 'telco_accounts' })
export class TelcoAccount extends Timestamped {
  @PrimaryKey()
  id!: number;

  @OneToOne(() => Company, { owner: true, deleteRule: 'cascade', unique: true })
  company!: Rel<Company>;

  @Property({ length: 64 })
  accountSid!: string;

  @Property({ type: 'text', hidden: true })
  authTokenSealed!: string;

  /** The balance the provider last reported (USD). */
  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  balance?: string | null;
}
