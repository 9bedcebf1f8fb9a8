import { triggerConfigSchema } from '../../workflows/graph-schema.js';
import { BOUNDS, PAGE_BOUND } from '../../kernel/bounds.js';
import type { RowParam, Route } from '../route.js';
import { PAGINATION } from './fragments.js';

const workflowId: RowParam = { type: 'id', idKind: 'workflow', idForms: ['base64'], description: 'Base64 workflow id' };
const builderId: RowParam = {
  type: 'id',
  idKind: 'workflow_builder',
  idLabel: 'Workflow',
  idForms: ['base64'],
  description: 'Base64 builder id',
};
const WORKFLOW_FIELDS = `id builder_id: builderId name description status builder_endpoint: builderEndpoint
  folder_id: folderId trigger_config: triggerConfig created_at: createdAt updated_at: updatedAt`;
const FOLDER_FIELDS = 'id name sort_order: sortOrder workflows_count: workflowsCount';
const CATALOG_FIELDS = 'type name category description config';
const triggerConfig: RowParam = {
  type: 'object',
  description:
    'The graph: nodes from the trigger and action catalogs, and edges between their ids (at least one trigger, no cycle)',
  schema: triggerConfigSchema(),
};

export const workflowRoutes: Route[] = [
  {
    operationId: 'createWorkflow',
    methods: ['POST'],
    paths: ['/api/Workflow/create'],
    tag: 'Workflows',
    summary: 'Create Workflow',
    description:
      'Every field is optional; an empty body creates "Untitled workflow" (numbered to stay unique). Status draft.',
    params: {
      body: {
        name: { ...BOUNDS.workflow.name },
        description: { ...BOUNDS.workflow.description },
        trigger_config: triggerConfig,
      },
    },
    document: `mutation CreateWorkflow($name: String, $description: String, $triggerConfig: JSONObject) {
      createWorkflow(input: { name: $name, description: $description, triggerConfig: $triggerConfig }) {
        id builder_id: builderId status builder_endpoint: builderEndpoint } }`,
    response: { field: 'createWorkflow', shape: 'envelope', data: true },
  },
  {
    operationId: 'updateWorkflowStatus',
    methods: ['PUT'],
    paths: ['/api/Workflow/{id}/status'],
    tag: 'Workflows',
    summary: 'Update Workflow Status',
    description: 'Sets the status only.',
    params: {
      path: { id: workflowId },
      body: { status: {} },
    },
    document: `mutation UpdateWorkflowStatus($id: ID!, $status: WorkflowStatus!) {
      updateWorkflowStatus(id: $id, status: $status) { ${WORKFLOW_FIELDS} } }`,
    response: {
      field: 'updateWorkflowStatus',
      shape: 'envelope',
      message: 'Workflow status updated successfully.',
      data: true,
    },
  },
  {
    operationId: 'moveWorkflowToFolder',
    methods: ['PUT'],
    paths: ['/api/Workflow/folder/move-to-folder/{id}'],
    tag: 'Workflows',
    summary: 'Move Workflow to Folder',
    description: 'Files the workflow in another folder of the company, or in none (uncategorized).',
    params: {
      path: { id: workflowId },
      body: { folder_id: { description: 'Base64 folder id, or the base64 of 0 ("MA==") for uncategorized' } },
    },
    document:
      'mutation MoveWorkflow($id: ID!, $folderId: ID!) { moveWorkflowToFolder(id: $id, folderId: $folderId) { id } }',
    response: { field: 'moveWorkflowToFolder', shape: 'envelope', message: 'Workflow moved successfully' },
  },
  {
    operationId: 'reorderWorkflowFolders',
    methods: ['POST'],
    paths: ['/api/Workflow/folder/reorder'],
    tag: 'Workflows',
    summary: 'Reorder Workflow Folders',
    description:
      'The listed folders take sort orders 1, 2, ... in the given order; other folders follow in their previous order. All or nothing.',
    params: {
      body: { folder_ids: { items: { type: 'id' }, description: 'Base64 or numeric folder ids in the new order' } },
    },
    document: 'mutation ReorderFolders($folderIds: [ID!]!) { reorderWorkflowFolders(folderIds: $folderIds) { id } }',
    response: { field: 'reorderWorkflowFolders', shape: 'envelope', message: 'Folders reordered successfully' },
  },
  {
    operationId: 'listWorkflows',
    answers: [404],
    methods: ['GET'],
    paths: ['/api/Workflow'],
    tag: 'Workflows',
    summary: 'List Workflows',
    description: 'Newest first.',
    params: {
      query: {
        folder_id: { description: 'Base64 folder id; "MA==" for uncategorized' },
        status: {},
        search: { ...BOUNDS.search, description: 'Matches the workflow name' },
        per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100' },
        page: { ...PAGE_BOUND },
      },
    },
    document: `query ListWorkflows($folderId: ID, $status: WorkflowStatus, $search: String, $page: Int, $perPage: Int) {
      workflows(folderId: $folderId, status: $status, search: $search, page: $page, perPage: $perPage) { records { ${WORKFLOW_FIELDS} } ${PAGINATION} } }`,
    response: { field: 'workflows', shape: 'envelope', data: true },
  },
  {
    operationId: 'listWorkflowFolders',
    methods: ['GET'],
    paths: ['/api/Workflow/folder'],
    tag: 'Workflows',
    summary: 'List Workflow Folders',
    description: 'In display order.',
    params: {},
    document: `query WorkflowFolders { workflowFolders { ${FOLDER_FIELDS} } }`,
    response: { field: 'workflowFolders', shape: 'envelope', data: true },
  },
  {
    operationId: 'createWorkflowFolder',
    methods: ['POST'],
    paths: ['/api/Workflow/folder'],
    tag: 'Workflows',
    summary: 'Create Workflow Folder',
    description: 'Added at the end of the order.',
    params: { body: { name: { ...BOUNDS.workflow.name } } },
    document: `mutation CreateFolder($name: String!) { createWorkflowFolder(name: $name) { ${FOLDER_FIELDS} } }`,
    response: { field: 'createWorkflowFolder', shape: 'envelope', message: 'Folder created successfully.', data: true },
    status: 201,
  },
  {
    operationId: 'getWorkflowBuilder',
    methods: ['GET'],
    paths: ['/api/Workflow/builder/{builder_id}'],
    tag: 'Workflows',
    summary: 'Get Builder',
    description: 'The workflow and its trigger_config graph.',
    params: { path: { builder_id: builderId } },
    document: `query Builder($builderId: ID!) { workflowBuilder(builderId: $builderId) { ${WORKFLOW_FIELDS} } }`,
    response: { field: 'workflowBuilder', shape: 'envelope', data: true },
  },
  {
    operationId: 'saveWorkflowBuilder',
    methods: ['PUT'],
    paths: ['/api/Workflow/builder/{builder_id}'],
    tag: 'Workflows',
    summary: 'Save Builder',
    description: 'Replaces the trigger_config graph; a graph that does not match the catalogs is 422 naming the node.',
    params: { path: { builder_id: builderId }, body: { trigger_config: { ...triggerConfig, required: true } } },
    document: `mutation SaveBuilder($builderId: ID!, $triggerConfig: JSONObject) {
      saveWorkflowBuilder(builderId: $builderId, triggerConfig: $triggerConfig) { ${WORKFLOW_FIELDS} } }`,
    response: { field: 'saveWorkflowBuilder', shape: 'envelope', message: 'Workflow saved successfully.', data: true },
  },
  {
    operationId: 'listWorkflowTriggers',
    methods: ['GET'],
    paths: ['/api/Workflow/catalog/triggers'],
    tag: 'Workflows',
    summary: 'Trigger catalog',
    description:
      'What can start a workflow: every domain event, with the settings each trigger node may have (its config is checked against them).',
    params: {},
    document: `query Triggers { workflowTriggers { ${CATALOG_FIELDS} } }`,
    response: { field: 'workflowTriggers', shape: 'envelope', data: true },
  },
  {
    operationId: 'listWorkflowActions',
    methods: ['GET'],
    paths: ['/api/Workflow/catalog/actions'],
    tag: 'Workflows',
    summary: 'Action catalog',
    description:
      'What a workflow can do (send an SMS, call a webhook, move a lead, wait, branch ...), with the settings each action node takes.',
    params: {},
    document: `query Actions { workflowActions { ${CATALOG_FIELDS} } }`,
    response: { field: 'workflowActions', shape: 'envelope', data: true },
  },
];
