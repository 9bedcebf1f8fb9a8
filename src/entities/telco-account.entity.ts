import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Property, Unique } from '@mikro-orm/core';

/** A company's account at the telephony provider (one per company), its auth token sealed (crypto/secret-box.ts). */
@Entity({ tableName: 'telco_accounts' })
@Unique({ name: 'telco_accounts_company_id_unique', properties: ['company'] })
export class TelcoAccount extends CompanyOwned {
  @Property({ type: 'string', length: 64 })
  accountSid!: string;

  @Property({ type: 'text', hidden: true })
  authTokenSealed!: string;

  /** The provider's balance as it last answered, to the cent (a decimal kept as its text). */
  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  balance: string | null = null;
}
