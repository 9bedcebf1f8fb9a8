import { ManyToOne, type Rel } from '@mikro-orm/core';
import { Company } from './company.entity.js';
import { Timestamped } from './timestamped.entity.js';

/** A row of one company, gone with it (`company_id`, its foreign key cascading; indexed by the table's own indexes). */
export abstract class CompanyOwned extends Timestamped {
  @ManyToOne(() => Company, { deleteRule: 'cascade', updateRule: 'cascade', index: false })
  company!: Rel<Company>;
}
