import { Entity, Enum, Index, ManyToOne, Property, type Opt, type Rel } from '@mikro-orm/core';
import { CompanyOwned } from './company-owned.js';
import { WorkflowFolder } from './workflow-folder.entity.js';

export enum WorkflowStatus {
  active = 'active',
  inactive = 'inactive',
  draft = 'draft',
}

/** The builder's graph: trigger and action nodes from the catalogs, and edges between them. */
export interface TriggerConfig {
  nodes?: Array<{ id: string; kind: 'trigger' | 'action'; type: string; config?: Record<string, unknown> }>;
  edges?: Array<{ from: string; to: string }>;
}

@Entity({ tableName: 'workflows' })
@Index({ properties: ['company', 'createdAt', 'id'] })
@Index({ properties: ['company', 'folder', 'createdAt', 'id'] })
@Index({
  name: 'workflows_name_trgm_index',
  expression: 'create index "workflows_name_trgm_index" on "workflows" using gin ("name" gin_trgm_ops)',
})
export class Workflow extends CompanyOwned {
  /** The builder's own id for this workflow (its own sequence). */
  // The schema diff always proposes to alter this column (it cannot read the sequence default back): drop those lines.
  @Property({ type: 'integer', unique: true, defaultRaw: `nextval('workflow_builder_id_seq')` })
  builderId!: Opt<number>;

  @ManyToOne(() => WorkflowFolder, { nullable: true, deleteRule: 'set null' })
  @Index()
  folder?: Rel<WorkflowFolder> | null;

  @Property({ length: 255 })
  name!: string;

  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Enum({ items: () => WorkflowStatus, default: WorkflowStatus.draft })
  status: Opt<WorkflowStatus> = WorkflowStatus.draft;

  @Property({ type: 'json', nullable: true })
  triggerConfig?: TriggerConfig | null;
}
