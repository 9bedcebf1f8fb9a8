import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Enum, Index, ManyToOne, type Opt, Property, type Rel } from '@mikro-orm/core';
import { type TriggerConfig, WorkflowStatus } from '../kernel/workflow.js';
import { WorkflowFolder } from './workflow-folder.entity.js';

// A company's automation workflow. `builder_id` is the builder's own number for it, drawn from the sequence
// workflow_builder_id_seq (starting at 1001); that sequence and the trigram index of the name (the list's search) are
// written in Migration20261121153357_workflows, the index declared here by name and statement.

@Entity({ tableName: 'workflows' })
@Index({ name: 'workflows_company_id_created_at_id_index', properties: ['company', 'createdAt', 'id'] })
@Index({
  name: 'workflows_company_id_folder_id_created_at_id_index',
  properties: ['company', 'folder', 'createdAt', 'id'],
})
@Index({
  name: 'workflows_name_trgm_index',
  expression: 'create index "workflows_name_trgm_index" on "workflows" using gin ("name" gin_trgm_ops)',
})
export class Workflow extends CompanyOwned {
  @Property({
    type: 'integer',
    autoincrement: true,
    unique: 'workflows_builder_id_unique',
  })
  builderId!: Opt<number>;

  @ManyToOne(() => WorkflowFolder, {
    nullable: true,
    deleteRule: 'set null',
    updateRule: 'cascade',
    index: 'workflows_folder_id_index',
  })
  folder: Rel<WorkflowFolder> | null = null;

  @Property({ type: 'string', length: 255 })
  name!: string;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Enum({ items: () => WorkflowStatus, default: WorkflowStatus.draft })
  status: Opt<WorkflowStatus> = WorkflowStatus.draft;

  /** The builder's graph (kernel/workflow.ts TriggerConfig). */
  @Property({ type: 'json', nullable: true })
  triggerConfig: TriggerConfig | null = null;
}
