import { Entity, Index, ManyToOne, PrimaryKey, Property, type Rel } from '@mikro-orm/core';
import { Company } from './company.entity.js';

/** A company's CRM pipeline (its stages are PipelineStage). */
@Entity({ tableName: 'pipelines' })
@Index({ name: 'pipelines_company_id_name_index', properties: ['company', 'name'] })
export class Pipeline {
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt!: Date;

  @ManyToOne(() => Company, { deleteRule: 'cascade', updateRule: 'cascade', index: false })
  company!: Rel<Company>;

  @Property({ type: 'string', length: 255 })
  name!: string;

  @Property({ type: 'string', length: 255, nullable: true })
  crmLocationId?: string | null;
}
