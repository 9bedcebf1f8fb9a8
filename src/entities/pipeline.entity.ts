import { Collection, Entity, Index, ManyToOne, OneToMany, PrimaryKey, Property, type Rel } from '@mikro-orm/core';
import { Company } from './company.entity.js';
import { PipelineStage } from './pipeline-stage.entity.js';
import { Timestamped } from './timestamps.js';

@Entity({ tableName: 'pipelines' })
@Index({ properties: ['company', 'name'] })
export class Pipeline extends Timestamped {
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Rel<Company>;

  @Property({ length: 255 })
  name!: string;

  /** The external CRM location this pipeline is synced with; null when unsynced. */
  @Property({ length: 255, nullable: true })
  crmLocationId?: string | null;

  @OneToMany(() => PipelineStage, (stage) => stage.pipeline)
  stages = new Collection<PipelineStage>(this);
}
