import { CompanyOwned } from './company-owned.entity.js';
import { DeferMode, Entity, Property, Unique } from '@mikro-orm/core';

/** A folder of a company's workflows, at a place unique in the company (checked at commit, so folders can be reordered). */
@Entity({ tableName: 'workflow_folders' })
@Unique({
  name: 'workflow_folders_company_id_sort_order_unique',
  properties: ['company', 'sortOrder'],
  deferMode: DeferMode.INITIALLY_DEFERRED,
})
export class WorkflowFolder extends CompanyOwned {
  @Property({ type: 'string', length: 255 })
  name!: string;

  @Property({ type: 'integer' })
  sortOrder!: number;
}
