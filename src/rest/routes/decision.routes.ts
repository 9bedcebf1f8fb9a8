import { BOUNDS } from '../../kernel/bounds.js';
import { ALL_ID_FORMS } from '../../kernel/ids.js';
import type { RowParam, Route } from '../route.js';
import { CREDENTIALS_FIELDS, CREDENTIALS_VARIABLE, credentials } from './credentials.js';

// Decision endpoints (docs/adr/0068-decisions-in-the-call-path.md): view-call-routing to
// read, manage-call-routing to change; path ids in every id form.

export const endpointId: RowParam = {
  type: 'id',
  idKind: 'decision_endpoint',
  idForms: ALL_ID_FORMS,
  description: 'Decision endpoint id: numeric, base64 or encrypted',
};
const FIELDS =
  'id url phone_number_id: phoneNumberId deadline_ms: deadlineMs hedge ' +
  'fallback { action agent_id: agentId forward_to: forwardTo } ' +
  'breaker { state consecutive_failures: consecutiveFailures opened_at: openedAt recent_p95_ms: recentP95Ms } ' +
  `${CREDENTIALS_FIELDS} created_at: createdAt updated_at: updatedAt`;

const fields: Record<string, RowParam> = {
  url: {
    ...BOUNDS.decisionEndpoint.url,
    description:
      'http or https (no credentials), not a private address; asked with a signed POST (docs/call-routing.md)',
  },
  phone_number_id: {
    type: 'id',
    nullable: true,
    description:
      "One of the company's numbers (any id form); null or left out: the company's endpoint, for its other numbers",
  },
  deadline_ms: {
    ...BOUNDS.decisionEndpoint.deadlineMs,
    description: 'From the call arriving to the decision; default 2000',
  },
  hedge: { description: "A second request when the first is slower than the endpoint's recent p95; default false" },
  fallback_action: { description: 'answer, forward or reject: what decides when the endpoint does not in time' },
  fallback_agent_id: {
    type: 'id',
    nullable: true,
    description: "answer: one of the company's agents; null: the number's own agent",
  },
  fallback_forward_to: { description: 'forward: the E.164 number' },
  credentials,
};
const INPUT_VARIABLES =
  '$url: String, $phoneNumberId: ID, $deadlineMs: Int, $hedge: Boolean, $fallbackAction: DecisionAction, ' +
  `$fallbackAgentId: ID, $fallbackForwardTo: String, ${CREDENTIALS_VARIABLE}`;
const INPUT =
  '{ url: $url, phoneNumberId: $phoneNumberId, deadlineMs: $deadlineMs, hedge: $hedge, fallbackAction: $fallbackAction, ' +
  'fallbackAgentId: $fallbackAgentId, fallbackForwardTo: $fallbackForwardTo, credentials: $credentials }';

const row = (r: Omit<Route, 'tag'>): Route => ({ tag: 'Call routing', ...r });

export const decisionRoutes: Route[] = [
  row({
    operationId: 'listDecisionEndpoints',
    methods: ['GET'],
    paths: ['/api/decision-endpoints'],
    summary: 'List decision endpoints',
    description: "The company's own first, then one per number; at most 100, so one page.",
    params: {},
    document: `query ListDecisionEndpoints { decisionEndpoints { ${FIELDS} } }`,
    response: { field: 'decisionEndpoints', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'createDecisionEndpoint',
    answers: [409],
    methods: ['POST'],
    paths: ['/api/decision-endpoints'],
    summary: 'Create a decision endpoint',
    description:
      'The URL asked how to route inbound calls (to one number, or the company’s others), its deadline and fallback. ' +
      'The response carries the signing secret; afterwards only GET /api/decision-endpoints/{id}/secret shows it. ' +
      'A second endpoint for the same number (or the company) is a 409.',
    params: {
      body: {
        ...fields,
        url: { ...fields.url, required: true },
        fallback_action: { ...fields.fallback_action, required: true },
      },
    },
    document:
      `mutation CreateDecisionEndpoint(${INPUT_VARIABLES.replace('$url: String', '$url: String!').replace(
        '$fallbackAction: DecisionAction',
        '$fallbackAction: DecisionAction!',
      )}) ` + `{ createDecisionEndpoint(input: ${INPUT}) { endpoint { ${FIELDS} } secret } }`,
    response: {
      field: 'createDecisionEndpoint',
      shape: 'envelope',
      message: 'Decision endpoint created successfully.',
      data: true,
      spread: 'endpoint',
    },
    status: 201,
  }),
  row({
    operationId: 'getDecisionEndpoint',
    methods: ['GET'],
    paths: ['/api/decision-endpoints/{id}'],
    summary: 'One decision endpoint',
    description: 'With its circuit breaker as the API process answering sees it.',
    params: { path: { id: endpointId } },
    document: `query GetDecisionEndpoint($id: ID!) { decisionEndpoint(id: $id) { ${FIELDS} } }`,
    response: { field: 'decisionEndpoint', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'updateDecisionEndpoint',
    answers: [409],
    methods: ['PUT'],
    paths: ['/api/decision-endpoints/{id}'],
    summary: 'Update a decision endpoint',
    description: 'A field left out keeps its value.',
    params: { path: { id: endpointId }, body: fields },
    document: `mutation UpdateDecisionEndpoint($id: ID!, ${INPUT_VARIABLES}) { updateDecisionEndpoint(id: $id, input: ${INPUT}) { ${FIELDS} } }`,
    response: {
      field: 'updateDecisionEndpoint',
      shape: 'envelope',
      message: 'Decision endpoint updated successfully.',
      data: true,
    },
  }),
  row({
    operationId: 'deleteDecisionEndpoint',
    methods: ['DELETE'],
    paths: ['/api/decision-endpoints/{id}'],
    summary: 'Delete a decision endpoint',
    description: "Calls to its number are decided by the company's endpoint, or by the number's agent without one.",
    params: { path: { id: endpointId } },
    document: 'mutation DeleteDecisionEndpoint($id: ID!) { deleteDecisionEndpoint(id: $id) }',
    response: {
      field: 'deleteDecisionEndpoint',
      shape: 'envelope',
      message: 'Decision endpoint deleted successfully.',
    },
  }),
  row({
    operationId: 'decisionEndpointSecret',
    methods: ['GET'],
    paths: ['/api/decision-endpoints/{id}/secret'],
    summary: 'Reveal the signing secret',
    params: { path: { id: endpointId } },
    document: 'query DecisionEndpointSecret($id: ID!) { decisionEndpointSecret(id: $id) { secret } }',
    response: { field: 'decisionEndpointSecret', shape: 'envelope', data: true },
  }),
];
