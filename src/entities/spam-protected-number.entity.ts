import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, type Opt, type Rel } from '@mikro-orm/core';
import { Company } from './company.entity.js';
import { Timestamped } from './timestamps.js';

export enum SpamNumberType {
  AI = 'AI',
  House = 'House',
  Custom = 'Custom',
}

export enum SpamStatus {
  InProgress = 'In Progress',
  Flagged = 'Flagged',
  Clean = 'Clean',
}

@Entity({ tableName: 'spam_protected_numbers' })
@Index({ properties: ['company', 'createdAt'] })
export class SpamProtectedNumber extends Timestamped {
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Rel<Company>;

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
