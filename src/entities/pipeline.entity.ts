import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Formula, Index, Property } from '@mikro-orm/core';

/** A company's CRM pipeline (its stages are PipelineStage). */
@Entity({ tableName: 'pipelines' })
@Index({ name: 'pipelines_company_id_name_index', properties: ['company', 'name'] })
export class Pipeline extends CompanyOwned {
  @Property({ type: 'string', length: 255 })
  name!: string;

  @Property({ type: 'string', length: 255, nullable: true })
  crmLocationId?: string | null;

  /** How many stages it has: read only when asked for (`populate: ['stagesCount']`), in the same statement. */
  @Formula((alias) => `(select count(*)::int from pipeline_stages s where s.pipeline_id = ${alias}.id)`, {
    type: 'integer',
    lazy: true,
  })
  stagesCount?: number;
}
