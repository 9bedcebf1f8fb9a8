import { Entity, Index, ManyToOne, PrimaryKey, Property, type Opt, type Rel } from '@mikro-orm/core';
import { Company } from './company.entity.js';
import { Timestamped } from './timestamps.js';

/** An AI voice agent of a company. */
@Entity({ tableName: 'agents' })
@Index({ properties: ['company', 'name'] })
export class Agent extends Timestamped {
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Rel<Company>;

  @Property({ length: 255 })
  name!: string;

  /** Inactive agents are kept for history but cannot be assigned. */
  @Property({ default: true })
  active: Opt<boolean> = true;

  /** Online agents take calls now. */
  @Property({ default: false })
  online: Opt<boolean> = false;
}
