import { BOUNDS, PAGE_BOUND } from '../../kernel/bounds.js';
import type { RowParam, Route } from '../route.js';
import { PAGINATION } from './fragments.js';

const pipelineId: RowParam = { type: 'id', idKind: 'pipeline', idForms: ['base64'], description: 'Base64 pipeline id' };
const PIPELINE_FIELDS = 'id name stages_count: stagesCount linked_to_crm: linkedToCrm crm_location_id: crmLocationId';
const STAGE_FIELDS = 'id stage_name: stageName pipeline_id: pipelineId';

export const pipelineRoutes: Route[] = [
  {
    operationId: 'listPipelines',
    methods: ['GET'],
    paths: ['/api/pipeline'],
    tag: 'Pipelines',
    summary: 'List Pipelines',
    description: 'Pipelines of the company ordered by name.',
    params: {
      query: {
        per_page: { ...PAGE_BOUND, description: 'Default 15, at most 30 (larger values are clamped)' },
        page: { ...PAGE_BOUND, description: 'Default 1' },
        crm_location_id: { description: 'all (default), unsynced (no CRM location), or a CRM location id' },
      },
    },
    document: `query ListPipelines($crmLocationId: String, $page: Int, $perPage: Int) {
      pipelines(crmLocationId: $crmLocationId, page: $page, perPage: $perPage) { records { ${PIPELINE_FIELDS} } ${PAGINATION} } }`,
    response: { field: 'pipelines', shape: 'envelope', data: true },
  },
  {
    operationId: 'createPipeline',
    methods: ['POST'],
    paths: ['/api/pipeline'],
    tag: 'Pipelines',
    summary: 'Create Pipeline',
    params: {
      body: {
        name: { ...BOUNDS.pipeline.name },
        crm_location_id: { ...BOUNDS.pipeline.crmLocationId, description: 'Link to a CRM location' },
      },
    },
    document: `mutation CreatePipeline($name: String!, $crmLocationId: String) {
      createPipeline(input: { name: $name, crmLocationId: $crmLocationId }) { ${PIPELINE_FIELDS} } }`,
    response: { field: 'createPipeline', shape: 'envelope', message: 'Pipeline created successfully.', data: true },
    status: 201,
  },
  {
    operationId: 'addPipelineStage',
    methods: ['POST'],
    paths: ['/api/pipeline/{id}/stages'],
    tag: 'Pipelines',
    summary: 'Add Pipeline Stage',
    description: 'Adds the stage at the end of the pipeline.',
    params: {
      path: { id: pipelineId },
      body: { stage_name: { ...BOUNDS.pipeline.stageName } },
    },
    document: `mutation AddPipelineStage($id: ID!, $stageName: String!) {
      addPipelineStage(pipelineId: $id, stageName: $stageName) { ${STAGE_FIELDS} } }`,
    response: { field: 'addPipelineStage', shape: 'envelope', message: 'Stage added successfully.', data: true },
  },
  {
    operationId: 'listPipelineStages',
    methods: ['GET'],
    paths: ['/api/pipeline/{id}/stages'],
    tag: 'Pipelines',
    summary: 'Pipeline stages',
    description: 'Stages of a pipeline in order.',
    params: { path: { id: pipelineId } },
    document: `query PipelineStages($id: ID!) { pipelineStages(pipelineId: $id) { ${STAGE_FIELDS} position } }`,
    response: { field: 'pipelineStages', shape: 'envelope', data: true },
  },
  {
    operationId: 'listPipelineLocations',
    methods: ['GET'],
    paths: ['/api/pipeline/locations'],
    tag: 'Pipelines',
    summary: 'Pipeline locations',
    description: 'CRM locations that pipelines are linked to, with how many pipelines each.',
    params: {},
    document:
      'query PipelineLocations { pipelineLocations { crm_location_id: crmLocationId pipelines_count: pipelinesCount } }',
    response: { field: 'pipelineLocations', shape: 'envelope', data: true },
  },
];
