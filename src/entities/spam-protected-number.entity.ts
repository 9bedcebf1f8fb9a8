import { Entity, Enum, Index, Property, type Opt } from '@mikro-orm/core';
import { CompanyOwned } from './company-owned.js';

import { SpamNumberType, SpamStatus } from '../kernel/vocabulary.js';

export { SpamNumberType, SpamStatus };

@Entity({ tableName: 'spam_protected_numbers' })
@Index({ properties: ['company', 'createdAt', 'id'] })
@Index({ properties: ['company', 'status', 'createdAt', 'id'] })
@Index({
  name: 'spam_protected_numbers_pnumber_trgm_index',
  expression:
    'create index "spam_protected_numbers_pnumber_trgm_index" on "spam_protected_numbers" using gin ("pnumber" gin_trgm_ops)',
})
export class SpamProtectedNumber extends CompanyOwned {
  @Enum({ items: () => SpamNumberType })
  type!: SpamNumberType;

  /** In Progress until the first check; then Flagged or Clean by the company's threshold. */
  @Enum({ items: () => SpamStatus, default: SpamStatus.InProgress })
  status: Opt<SpamStatus> = SpamStatus.InProgress;

  @Property({ length: 20 })
  pnumber!: string;

  /** Carriers that flagged the number at the latest check. */
  @Property({ type: 'json', default: '[]' })
  flaggedCarriers: Opt<string[]> = [];

  /** Carriers asked at the latest check. */
  @Property({ type: 'json', default: '[]' })
  carriersChecked: Opt<string[]> = [];

  @Property({ type: 'datetime', nullable: true })
  latestCheckAt?: Date | null;

  @Property({ type: 'datetime' })
  renewsAt!: Date;

  @Property({ default: true })
  autoRenew: Opt<boolean> = true;
}
