import { Entity, Index, Property } from '@mikro-orm/core';
import { CompanyOwned } from './company-owned.js';

@Entity({ tableName: 'workflow_folders' })
@Index({ properties: ['company', 'sortOrder'] })
export class WorkflowFolder extends CompanyOwned {
  @Property({ length: 255 })
  name!: string;

  /** Display order; 1 is first. */
  @Property()
  sortOrder!: number;
}
