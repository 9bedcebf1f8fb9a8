import { BOUNDS } from '../../kernel/bounds.js';
import { ALL_ID_FORMS } from '../../kernel/ids.js';
import type { RowParam, Route } from '../route.js';
import { CREDENTIALS_FIELDS, CREDENTIALS_VARIABLE, credentials } from './credentials.js';

// Tools for AI agents (docs/adr/0069-tools-for-ai-agents.md): view-agents to read,
// manage-agents to change; path ids in every id form.

const agentId: RowParam = {
  type: 'id',
  idKind: 'agent',
  idForms: ALL_ID_FORMS,
  variable: 'agentId',
  description: 'Agent id: numeric, base64 or encrypted',
};
export const toolId: RowParam = {
  type: 'id',
  idKind: 'agent_tool',
  idForms: ALL_ID_FORMS,
  description: 'Tool id: numeric, base64 or encrypted',
};
const FIELDS =
  'id agent_id: agentId name description parameters url deadline_ms: deadlineMs fallback_message: fallbackMessage ' +
  'breaker { state consecutive_failures: consecutiveFailures opened_at: openedAt recent_p95_ms: recentP95Ms } ' +
  `${CREDENTIALS_FIELDS} created_at: createdAt updated_at: updatedAt`;
const fields: Record<string, RowParam> = {
  name: { description: 'As the agent calls it: letters, digits, _ and -, at most 64; unique per agent' },
  description: { ...BOUNDS.agentTool.description, description: 'What the tool does, for the agent' },
  parameters: {
    maxProperties: 50,
    schema: {
      type: 'object',
      required: ['type'],
      properties: { type: { const: 'object' } },
      additionalProperties: true,
    },
    description: 'JSON Schema of the arguments, `type: object` (at most 20,000 characters of JSON)',
  },
  url: { ...BOUNDS.agentTool.url, description: 'http or https, not a private address; asked with a signed POST' },
  deadline_ms: {
    ...BOUNDS.agentTool.deadlineMs,
    description: 'From the tool call arriving to the result; default 3000',
  },
  fallback_message: {
    ...BOUNDS.agentTool.fallbackMessage,
    description: 'Put into the conversation when the endpoint does not answer in time or fails',
  },
  credentials,
};
const INPUT_VARIABLES =
  '$name: String, $description: String, $parameters: JSONObject, $url: String, $deadlineMs: Int, $fallbackMessage: String, ' +
  CREDENTIALS_VARIABLE;
const INPUT =
  '{ name: $name, description: $description, parameters: $parameters, url: $url, deadlineMs: $deadlineMs, ' +
  'fallbackMessage: $fallbackMessage, credentials: $credentials }';
const required = (names: string[]) =>
  names.reduce((variables, name) => variables.replace(new RegExp(`(\\$${name}: \\w+)`), '$1!'), INPUT_VARIABLES);

const row = (r: Omit<Route, 'tag'>): Route => ({ tag: 'AI agents', ...r });

export const agentToolRoutes: Route[] = [
  row({
    operationId: 'listAgentTools',
    methods: ['GET'],
    paths: ['/api/agents/{id}/tools'],
    summary: "An agent's tools",
    description: 'By name; at most 50, so one page.',
    params: { path: { id: agentId } },
    document: `query ListAgentTools($agentId: ID!) { agentTools(agentId: $agentId) { ${FIELDS} } }`,
    response: { field: 'agentTools', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'createAgentTool',
    answers: [409],
    methods: ['POST'],
    paths: ['/api/agents/{id}/tools'],
    summary: 'Give an agent a tool',
    description:
      'The agent may call it during calls; Switchboard checks the arguments and asks the url (docs/call-routing.md, ' +
      'Tools). The response carries the signing secret; afterwards only GET /api/agent-tools/{id}/secret shows it.',
    params: {
      path: { id: agentId },
      body: {
        ...fields,
        name: { ...fields.name, required: true },
        description: { ...fields.description, required: true },
        parameters: { ...fields.parameters, required: true },
        url: { ...fields.url, required: true },
      },
    },
    document:
      `mutation CreateAgentTool($agentId: ID!, ${required(['name', 'description', 'parameters', 'url'])}) ` +
      `{ createAgentTool(agentId: $agentId, input: ${INPUT}) { tool { ${FIELDS} } secret } }`,
    response: {
      field: 'createAgentTool',
      shape: 'envelope',
      message: 'Tool created successfully.',
      data: true,
      spread: 'tool',
    },
    status: 201,
  }),
  row({
    operationId: 'getAgentTool',
    methods: ['GET'],
    paths: ['/api/agent-tools/{id}'],
    summary: 'One tool',
    params: { path: { id: toolId } },
    document: `query GetAgentTool($id: ID!) { agentTool(id: $id) { ${FIELDS} } }`,
    response: { field: 'agentTool', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'updateAgentTool',
    answers: [409],
    methods: ['PUT'],
    paths: ['/api/agent-tools/{id}'],
    summary: 'Update a tool',
    description: 'A field left out keeps its value.',
    params: { path: { id: toolId }, body: fields },
    document: `mutation UpdateAgentTool($id: ID!, ${INPUT_VARIABLES}) { updateAgentTool(id: $id, input: ${INPUT}) { ${FIELDS} } }`,
    response: { field: 'updateAgentTool', shape: 'envelope', message: 'Tool updated successfully.', data: true },
  }),
  row({
    operationId: 'deleteAgentTool',
    methods: ['DELETE'],
    paths: ['/api/agent-tools/{id}'],
    summary: 'Delete a tool',
    params: { path: { id: toolId } },
    document: 'mutation DeleteAgentTool($id: ID!) { deleteAgentTool(id: $id) }',
    response: { field: 'deleteAgentTool', shape: 'envelope', message: 'Tool deleted successfully.' },
  }),
  row({
    operationId: 'agentToolSecret',
    methods: ['GET'],
    paths: ['/api/agent-tools/{id}/secret'],
    summary: "Reveal a tool's signing secret",
    params: { path: { id: toolId } },
    document: 'query AgentToolSecret($id: ID!) { agentToolSecret(id: $id) { secret } }',
    response: { field: 'agentToolSecret', shape: 'envelope', data: true },
  }),
];
