import { BOUNDS, PAGE_BOUND } from '../../kernel/bounds.js';
import { ALL_ID_FORMS } from '../../kernel/ids.js';
import type { RowParam, Route } from '../route.js';
import { PAGINATION } from './fragments.js';

// AI agents and the provider account (docs/design.md §4), so a REST
// integrator can set a company up without GraphQL.

const agentId: RowParam = {
  type: 'id',
  idKind: 'agent',
  idForms: ALL_ID_FORMS,
  description: 'Agent id: numeric, base64 or encrypted',
};
const AGENT_FIELDS = 'id encrypted_id: encryptedId name active online';

export const agentRoutes: Route[] = [
  {
    operationId: 'listAgents',
    methods: ['GET'],
    paths: ['/api/agents'],
    tag: 'AI agents',
    summary: 'List AI agents',
    description: 'Agents of the company by name.',
    params: {
      query: {
        per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100' },
        page: { ...PAGE_BOUND, description: 'Default 1' },
        search: { ...BOUNDS.search, description: 'Matches the agent name' },
        active: {},
      },
    },
    document: `query ListAgents($search: String, $active: Boolean, $page: Int, $perPage: Int) {
      agents(search: $search, active: $active, page: $page, perPage: $perPage) { records { ${AGENT_FIELDS} } ${PAGINATION} } }`,
    response: { field: 'agents', shape: 'envelope', data: true },
  },
  {
    operationId: 'createAgent',
    methods: ['POST'],
    paths: ['/api/agents'],
    tag: 'AI agents',
    summary: 'Create an AI agent',
    description: 'Sends agent.created.',
    params: { body: { name: { ...BOUNDS.agent.name } } },
    document: `mutation CreateAgent($name: String!) { createAgent(name: $name) { ${AGENT_FIELDS} } }`,
    response: { field: 'createAgent', shape: 'envelope', message: 'Agent created successfully.', data: true },
    status: 201,
  },
  {
    operationId: 'updateAgent',
    methods: ['PUT'],
    paths: ['/api/agents/{id}'],
    tag: 'AI agents',
    summary: 'Update an AI agent',
    description: 'Name and active; an agent made inactive goes offline. Sends agent.updated.',
    params: { path: { id: agentId }, body: { name: {}, active: {} } },
    document: `mutation UpdateAgent($id: ID!, $name: String, $active: Boolean) { updateAgent(id: $id, name: $name, active: $active) { ${AGENT_FIELDS} } }`,
    response: { field: 'updateAgent', shape: 'envelope', message: 'Agent updated successfully.', data: true },
  },
  {
    operationId: 'setAgentStatus',
    methods: ['PUT'],
    paths: ['/api/agents/{id}/status'],
    tag: 'AI agents',
    summary: 'Switch an AI agent online or offline',
    description: 'Sends agent.status_changed.',
    params: { path: { id: agentId }, body: { online: {} } },
    document: `mutation SetAgentOnline($id: ID!, $online: Boolean!) { setAgentOnline(id: $id, online: $online) { ${AGENT_FIELDS} } }`,
    response: { field: 'setAgentOnline', shape: 'envelope', message: 'Agent status updated successfully.', data: true },
  },
  {
    operationId: 'setTelcoAccount',
    answers: [429, 502],
    methods: ['PUT'],
    paths: ['/api/telco/account'],
    tag: 'Phone numbers',
    summary: 'Set the provider account',
    description:
      'The Owner role only. Checked with the provider, which reports the balance; the auth token is stored ' +
      'sealed and never returned. At most 10 changes per company per hour.',
    params: {
      body: {
        account_sid: { description: 'AC followed by 32 hexadecimal digits' },
        auth_token: { ...BOUNDS.telco.authToken },
      },
    },
    document:
      'mutation SetTelcoAccount($accountSid: String!, $authToken: String!) { setTelcoAccount(accountSid: ' +
      '$accountSid, authToken: $authToken) { provider account_sid: accountSid balance } }',
    response: {
      field: 'setTelcoAccount',
      shape: 'envelope',
      message: 'Telco account updated successfully.',
      data: true,
    },
  },
  {
    operationId: 'getAgentPerformanceThresholds',
    methods: ['GET'],
    paths: ['/api/agents/performance-thresholds'],
    tag: 'AI agents',
    summary: 'agent.performance thresholds',
    description:
      "agent.performance fires when an agent's answer rate or average sentiment over its last 20 finished calls (at least 5) crosses these.",
    params: {},
    document:
      'query AgentPerformanceThresholds { agentPerformanceThresholds { answer_rate: answerRate average_sentiment: averageSentiment } }',
    response: { field: 'agentPerformanceThresholds', shape: 'envelope', data: true },
  },
  {
    operationId: 'setAgentPerformanceThresholds',
    methods: ['PUT'],
    paths: ['/api/agents/performance-thresholds'],
    tag: 'AI agents',
    summary: 'Change the agent.performance thresholds',
    params: {
      body: {
        answer_rate: { description: '0 to 1 (default 0.6)' },
        average_sentiment: { description: '-1 to 1: positive 1, neutral 0, negative -1 (default 0)' },
      },
    },
    document:
      'mutation SetAgentPerformanceThresholds($answerRate: Float, $averageSentiment: Float) { ' +
      'setAgentPerformanceThresholds(answerRate: $answerRate, averageSentiment: $averageSentiment) { ' +
      'answer_rate: answerRate average_sentiment: averageSentiment } }',
    response: {
      field: 'setAgentPerformanceThresholds',
      shape: 'envelope',
      message: 'Thresholds updated successfully.',
      data: true,
    },
  },
];
