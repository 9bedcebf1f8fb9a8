import { Collection, Entity, Index, OneToMany, Property } from '@mikro-orm/core';
import { PipelineStage } from './pipeline-stage.entity.js';
import { CompanyOwned } from './company-owned.js';

@Entity({ tableName: 'pipelines' })
@Index({ properties: ['company', 'name'] })
export class Pipeline extends CompanyOwned {
  @Property({ length: 255 })
  name!: string;

  /** The external CRM location this pipeline is synced with; null when unsynced. */
  @Property({ length: 255, nullable: true })
  crmLocationId?: string | null;

  @OneToMany(
    () => PipelineStage,
    (stage) => stage.pipeline,
  )
  stages = new Collection<PipelineStage>(this);
}
