import { Entity, Index, ManyToOne, PrimaryKey, Property, type Rel } from '@mikro-orm/core';
import { Company } from './company.entity.js';
import { Timestamped } from './timestamps.js';

@Entity({ tableName: 'workflow_folders' })
@Index({ properties: ['company', 'sortOrder'] })
export class WorkflowFolder extends Timestamped {
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Rel<Company>;

  @Property({ length: 255 })
  name!: string;

  /** Display order; 1 is first. */
  @Property()
  sortOrder!: number;
}
