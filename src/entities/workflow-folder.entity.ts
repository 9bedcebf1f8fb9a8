import { Entity, Property, Unique } from '@mikro-orm/core';
import { CompanyOwned } from './company-owned.js';

@Entity({ tableName: 'workflow_folders' })
// Two folders never share a place; deferred, so a reorder may pass through duplicates inside its transaction.
@Unique({
  name: 'workflow_folders_company_id_sort_order_unique',
  properties: ['company', 'sortOrder'],
  deferMode: 'deferred',
})
export class WorkflowFolder extends CompanyOwned {
  @Property({ length: 255 })
  name!: string;

  /** Display order; 1 is first. */
  @Property()
  sortOrder!: number;
}
