import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Enum, Index, type Opt, Property } from '@mikro-orm/core';
import { SpamNumberType, SpamStatus } from '../kernel/vocabulary.js';

// A number a company has protected from spam labels, and what the carriers said at its latest check. The trigram
// index of the number is written in Migration20261123101500_list_indexes, declared here by name and statement.

@Entity({ tableName: 'spam_protected_numbers' })
@Index({ name: 'spam_protected_numbers_company_id_created_at_id_index', properties: ['company', 'createdAt', 'id'] })
@Index({
  name: 'spam_protected_numbers_company_id_status_created_at_id_index',
  properties: ['company', 'status', 'createdAt', 'id'],
})
@Index({
  name: 'spam_protected_numbers_pnumber_trgm_index',
  expression:
    'create index "spam_protected_numbers_pnumber_trgm_index" on "spam_protected_numbers" using gin ("pnumber" gin_trgm_ops)',
})
export class SpamProtectedNumber extends CompanyOwned {
  @Enum({ items: () => SpamNumberType })
  type!: SpamNumberType;

  @Enum({ items: () => SpamStatus, default: SpamStatus.InProgress })
  status: Opt<SpamStatus> = SpamStatus.InProgress;

  @Property({ type: 'string', length: 20 })
  pnumber!: string;

  @Property({ type: 'json', default: '[]' })
  flaggedCarriers: Opt<string[]> = [];

  @Property({ type: 'json', default: '[]' })
  carriersChecked: Opt<string[]> = [];

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  latestCheckAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  renewsAt!: Date;

  @Property({ type: 'boolean', default: true })
  autoRenew: Opt<boolean> = true;
}
