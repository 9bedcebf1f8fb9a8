// What a workflow is, as the services, the resolvers and the graph checks speak of it.

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
