import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Index, Property } from '@mikro-orm/core';

/** A company's CRM pipeline (its stages are PipelineStage). */
@Entity({ tableName: 'pipelines' })
@Index({ name: 'pipelines_company_id_name_index', properties: ['company', 'name'] })
export class Pipeline extends CompanyOwned {
  @Property({ type: 'string', length: 255 })
  name!: string;

  @Property({ type: 'string', length: 255, nullable: true })
  crmLocationId?: string | null;
}
