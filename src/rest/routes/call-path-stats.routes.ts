import type { Route } from '../route.js';
import { toolId } from './agent-tool.routes.js';
import { endpointId } from './decision.routes.js';
import { STATS_WINDOW_QUERY } from './webhook-stats.routes.js';

// Endpoint health for the call path (docs/call-routing.md): a decision endpoint's or an agent tool's record over time.

const FIGURES =
  'questions answered timeout error invalid unreachable breaker_open: breakerOpen hedged ' +
  'breaker_openings: breakerOpenings answer_rate: answerRate added_p50_ms: addedP50Ms added_p99_ms: addedP99Ms ' +
  'endpoint_p50_ms: endpointP50Ms endpoint_p99_ms: endpointP99Ms';
const STATS_FIELDS =
  `endpoint_id: endpointId bucket from to time_zone: timeZone totals { ${FIGURES} } ` +
  `company_totals: companyTotals { ${FIGURES} } ` +
  'breaker { state consecutive_failures: consecutiveFailures opened_at: openedAt recent_p95_ms: recentP95Ms } ' +
  `points { at ${FIGURES} }`;
const DESCRIPTION =
  'Questions by outcome (answered; the fallback by reason: timeout, error, invalid, unreachable, breaker_open), ' +
  'hedged questions and breaker openings, the answer rate, and the 50th and 99th percentiles of the time ' +
  'Switchboard added and of the endpoint’s own, in buckets of the company’s zone (every bucket of the window, empty ' +
  'ones too), with the company’s totals beside them. Counted as the questions are answered, written every few seconds.';

export const callPathStatsRoutes: Route[] = [
  {
    tag: 'Call routing',
    operationId: 'getDecisionEndpointStats',
    methods: ['GET'],
    paths: ['/api/decision-endpoints/{id}/stats'],
    summary: 'A decision endpoint over time',
    description: DESCRIPTION,
    params: { path: { id: endpointId }, query: STATS_WINDOW_QUERY },
    document: `query DecisionEndpointStats($id: ID!, $from: String, $to: String, $bucket: StatsBucket) {
      decisionEndpointStats(id: $id, from: $from, to: $to, bucket: $bucket) { ${STATS_FIELDS} } }`,
    response: { field: 'decisionEndpointStats', shape: 'envelope', data: true },
  },
  {
    tag: 'AI agents',
    operationId: 'getAgentToolStats',
    methods: ['GET'],
    paths: ['/api/agent-tools/{id}/stats'],
    summary: 'An agent tool over time',
    description: DESCRIPTION,
    params: { path: { id: toolId }, query: STATS_WINDOW_QUERY },
    document: `query AgentToolStats($id: ID!, $from: String, $to: String, $bucket: StatsBucket) {
      agentToolStats(id: $id, from: $from, to: $to, bucket: $bucket) { ${STATS_FIELDS} } }`,
    response: { field: 'agentToolStats', shape: 'envelope', data: true },
  },
];
