import { ManyToOne, PrimaryKey, type Rel } from '@mikro-orm/core';
import { Company } from './company.entity.js';
import { Timestamped } from './timestamps.js';

/** A record that belongs to one company and goes with it. Every query of such a record is scoped by `company`. */
export abstract class CompanyOwned extends Timestamped {
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Rel<Company>;
}
