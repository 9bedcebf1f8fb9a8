import type { Route } from '../route.js';
import { row, webhookId } from './webhook.routes.js';

// Endpoint health (docs/webhooks.md): a webhook's record over time, and the company's over all its webhooks.

const FIGURES =
  'attempts success client_error: clientError server_error: serverError timeout network ' +
  'broker_refused: brokerRefused interrupted failed success_rate: successRate p50_ms: p50Ms p95_ms: p95Ms p99_ms: p99Ms';
const STATS_FIELDS =
  `webhook_id: webhookId bucket from to time_zone: timeZone totals { ${FIGURES} } ` +
  `company_totals: companyTotals { ${FIGURES} } waiting points { at ${FIGURES} }`;
/** The window's query parameters, as every record over time takes them. */
export const STATS_WINDOW_QUERY = {
  from: { description: 'ISO 8601 date-time; default: an hour, a day or 30 days before to (by bucket)' },
  to: { description: 'ISO 8601 date-time, not in the future; default now' },
  bucket: { description: 'minute (reaching back 24 hours), hour (default; at most 30 days) or day (at most 90 days)' },
};
const DESCRIPTION =
  'Attempts by outcome (success, client_error, server_error, timeout, network, broker_refused, interrupted), ' +
  'failed deliveries, the success rate and answer-time percentiles, in buckets of the company’s zone (every bucket ' +
  'of the window, empty ones too), kept as the attempts are made.';

export const webhookStatsRoutes: Route[] = [
  row({
    operationId: 'getCompanyWebhookStats',
    methods: ['GET'],
    paths: ['/api/webhooks/stats'],
    summary: "All the company's webhooks over time",
    description: DESCRIPTION,
    params: { query: STATS_WINDOW_QUERY },
    document: `query CompanyWebhookStats($from: String, $to: String, $bucket: StatsBucket) {
      companyWebhookStats(from: $from, to: $to, bucket: $bucket) { ${STATS_FIELDS} } }`,
    response: { field: 'companyWebhookStats', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'getWebhookStats',
    methods: ['GET'],
    paths: ['/api/webhooks/{id}/stats'],
    summary: 'A webhook over time',
    description: `${DESCRIPTION} With the company's totals over the same window, and the deliveries waiting now.`,
    params: { path: { id: webhookId }, query: STATS_WINDOW_QUERY },
    document: `query WebhookStats($id: ID!, $from: String, $to: String, $bucket: StatsBucket) {
      webhookStats(id: $id, from: $from, to: $to, bucket: $bucket) { ${STATS_FIELDS} } }`,
    response: { field: 'webhookStats', shape: 'envelope', data: true },
  }),
];
