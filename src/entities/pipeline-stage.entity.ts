import { Entity, ManyToOne, PrimaryKey, Property, Unique, type Rel } from '@mikro-orm/core';
import { Pipeline } from './pipeline.entity.js';
import { Timestamped } from './timestamps.js';

@Entity({ tableName: 'pipeline_stages' })
// Two stages never share a position; deferred, so a reorder may pass through duplicates inside its transaction.
@Unique({
  name: 'pipeline_stages_pipeline_id_position_unique',
  properties: ['pipeline', 'position'],
  deferMode: 'deferred',
})
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
