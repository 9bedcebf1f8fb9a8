import { Timestamped } from './timestamped.entity.js';
import { DeferMode, Entity, ManyToOne, Property, Unique, type Rel } from '@mikro-orm/core';
import { Pipeline } from './pipeline.entity.js';

/** A stage of a pipeline, at a position unique in it (checked at commit, so stages can be reordered in one transaction). */
@Entity({ tableName: 'pipeline_stages' })
@Unique({
  name: 'pipeline_stages_pipeline_id_position_unique',
  properties: ['pipeline', 'position'],
  deferMode: DeferMode.INITIALLY_DEFERRED,
})
export class PipelineStage extends Timestamped {
  @ManyToOne(() => Pipeline, { deleteRule: 'cascade', updateRule: 'cascade', index: false })
  pipeline!: Rel<Pipeline>;

  @Property({ type: 'string', length: 255 })
  name!: string;

  @Property({ type: 'integer' })
  position!: number;
}
