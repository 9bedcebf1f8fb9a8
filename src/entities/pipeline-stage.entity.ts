import { Entity, Index, ManyToOne, PrimaryKey, Property, type Rel } from '@mikro-orm/core';
import { Pipeline } from './pipeline.entity.js';
import { Timestamped } from './timestamps.js';

@Entity({ tableName: 'pipeline_stages' })
@Index({ properties: ['pipeline', 'position'] })
export class PipelineStage extends Timestamped {
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Pipeline, { deleteRule: 'cascade' })
  pipeline!: Rel<Pipeline>;

  @Property({ length: 255 })
  name!: string;

  /** 1 is first; new stages go at the end. */
  @Property()
  position!: number;
}
