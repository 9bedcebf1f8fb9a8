import { PAGE_BOUND } from '../../kernel/bounds.js';
import type { Route } from '../route.js';
import { PAGINATION } from './fragments.js';
import {
  ATTEMPT_FIELDS,
  DELIVERY_FIELDS,
  deliveryId,
  filter,
  row,
  STORED_EVENT_FIELDS,
  webhookId,
} from './webhook.routes.js';

// A webhook's deliveries and events: the test send, the delivery log and the
// search by subject, filtered events and notices, resend, recover and replay.

export const webhookDeliveryRoutes: Route[] = [
  row({
    operationId: 'testWebhook',
    methods: ['POST'],
    paths: ['/api/webhooks/{id}/test'],
    summary: 'Send a test event',
    description: "Sends the event's documented example now (default: the webhook's first event).",
    params: { path: { id: webhookId }, body: { event: { description: 'One of the sixteen event types' } } },
    document: `mutation TestWebhook($id: ID!, $event: WebhookEvent) { testWebhook(id: $id, event: $event) { ${DELIVERY_FIELDS} } }`,
    response: { field: 'testWebhook', shape: 'envelope', data: true },
    status: 202,
  }),
  row({
    operationId: 'listWebhookDeliveries',
    methods: ['GET'],
    paths: ['/api/webhooks/{id}/deliveries'],
    summary: 'Deliveries of a webhook',
    description: 'Newest first.',
    params: {
      path: { id: webhookId },
      query: {
        per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100' },
        page: { ...PAGE_BOUND },
        status: {},
        event: {},
      },
    },
    document: `query WebhookDeliveries($id: ID!, $status: DeliveryStatus, $event: WebhookEvent, $page: Int, $perPage: Int) {
      webhookDeliveries(id: $id, status: $status, event: $event, page: $page, perPage: $perPage) { records { ${DELIVERY_FIELDS} } ${PAGINATION} } }`,
    response: { field: 'webhookDeliveries', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'listDeliveriesBySubject',
    methods: ['GET'],
    paths: ['/api/webhooks/deliveries'],
    summary: 'Deliveries about a call, campaign, contact or agent',
    description:
      'Across every webhook of the company, newest first. Give exactly one of call_id, campaign_id, ' +
      'contact_id and agent_id (numeric ids, as the payloads carry them).',
    params: {
      query: {
        call_id: { description: 'The call a delivery concerns' },
        campaign_id: { description: 'The campaign a delivery concerns' },
        contact_id: { description: 'The contact a delivery concerns' },
        agent_id: { description: 'The AI agent a delivery concerns' },
        per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100' },
        page: { ...PAGE_BOUND },
      },
    },
    document: `query DeliveriesBySubject($callId: ID, $campaignId: ID, $contactId: ID, $agentId: ID, $page: Int, $perPage: Int) {
      webhookDeliveriesBySubject(callId: $callId, campaignId: $campaignId, contactId: $contactId, agentId:
        $agentId, page: $page, perPage: $perPage) { records { ${DELIVERY_FIELDS} } ${PAGINATION} } }`,
    response: { field: 'webhookDeliveriesBySubject', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'listWebhookFilteredEvents',
    methods: ['GET'],
    paths: ['/api/webhooks/{id}/filtered-events'],
    summary: 'Events the filters turned away',
    description:
      "Events of the webhook's subscribed types that its payload filters turned away, so no delivery was " +
      'made; newest first, kept for WEBHOOK_RETENTION. data is what a delivery would have carried.',
    params: {
      path: { id: webhookId },
      query: { per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100' }, page: { ...PAGE_BOUND } },
    },
    document: `query WebhookFilteredEvents($id: ID!, $page: Int, $perPage: Int) {
      webhookFilteredEvents(id: $id, page: $page, perPage: $perPage) { records { ${STORED_EVENT_FIELDS} } ${PAGINATION} } }`,
    response: { field: 'webhookFilteredEvents', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'listWebhookNotices',
    answers: [404],
    methods: ['GET'],
    paths: ['/api/webhooks/notices'],
    summary: 'Operator notices',
    description:
      "The company's operator events, newest first: webhook.failing (at 50 % and 90 % of the disable " +
      'window), webhook.disabled, webhook.recovered and delivery.exhausted; with webhook_id, those about ' +
      'that webhook. Kept for WEBHOOK_RETENTION.',
    params: {
      query: {
        webhook_id: { type: 'id', description: 'Only the notices about this webhook: numeric, base64 or encrypted id' },
        open: {
          description:
            'true: only the notices whose matter still holds (a delivery not yet succeeded, a webhook still off or failing, a recovery of the last day)',
        },
        per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100' },
        page: { ...PAGE_BOUND },
      },
    },
    document: `query WebhookNotices($webhookId: ID, $open: Boolean, $page: Int, $perPage: Int) {
      webhookNotices(webhookId: $webhookId, open: $open, page: $page, perPage: $perPage) { records { ${STORED_EVENT_FIELDS} } ${PAGINATION} } }`,
    response: { field: 'webhookNotices', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'testWebhookFilter',
    methods: ['POST'],
    paths: ['/api/webhooks/filters/test'],
    summary: 'Test a payload filter',
    description:
      'Checks a filter for an event type (422 naming each bad path or value) and tells whether data passes ' +
      "it: the event type's example data when none is given.",
    params: {
      body: {
        event: { description: 'One of the event types' },
        filter: { ...filter, required: true },
        data: { type: 'object', description: "The event data to test (default: the event type's example)" },
      },
    },
    document:
      'query TestWebhookFilter($event: WebhookEvent!, $filter: JSONObject!, $data: JSONObject) { ' +
      'testWebhookFilter(event: $event, filter: $filter, data: $data) { matches } }',
    response: { field: 'testWebhookFilter', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'getWebhookDelivery',
    methods: ['GET'],
    paths: ['/api/webhooks/deliveries/{delivery_id}'],
    summary: 'One delivery',
    description: 'Its payload and every attempt.',
    params: { path: { delivery_id: deliveryId } },
    document: `query WebhookDelivery($id: ID!) { webhookDelivery(id: $id) { ${DELIVERY_FIELDS} payload attempts { ${ATTEMPT_FIELDS} } } }`,
    response: { field: 'webhookDelivery', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'resendWebhookDelivery',
    answers: [409],
    methods: ['POST'],
    paths: ['/api/webhooks/deliveries/{delivery_id}/resend'],
    summary: 'Resend a delivery',
    description: 'A failed, succeeded or cancelled delivery goes out again now with a fresh schedule of five attempts.',
    params: { path: { delivery_id: deliveryId } },
    document: `mutation ResendWebhookDelivery($id: ID!) { resendWebhookDelivery(id: $id) { ${DELIVERY_FIELDS} } }`,
    response: { field: 'resendWebhookDelivery', shape: 'envelope', data: true },
    status: 202,
  }),
  row({
    operationId: 'recoverWebhookDeliveries',
    methods: ['POST'],
    paths: ['/api/webhooks/{id}/recover'],
    summary: 'Recover failed deliveries',
    description: 'Re-sends every failed delivery created between since and until (at most 14 days).',
    params: {
      path: { id: webhookId },
      body: { since: { description: 'ISO 8601 date-time' }, until: { description: 'ISO 8601 date-time; default now' } },
    },
    document:
      'mutation RecoverWebhookDeliveries($id: ID!, $since: String!, $until: String) { ' +
      'recoverWebhookDeliveries(id: $id, since: $since, until: $until) { count } }',
    response: { field: 'recoverWebhookDeliveries', shape: 'envelope', data: true },
    status: 202,
  }),
  row({
    operationId: 'previewWebhookReplay',
    methods: ['GET'],
    paths: ['/api/webhooks/{id}/missing-events'],
    summary: 'Count missing events',
    description:
      "How many events of the webhook's subscribed types between since and until (at most the retention, " +
      '30 days) it never got a delivery of, and how many of those its filters turn away: what ' +
      'replay-missing would send.',
    params: {
      path: { id: webhookId },
      query: {
        since: { description: 'ISO 8601 date-time' },
        until: { description: 'ISO 8601 date-time; default now' },
      },
    },
    document:
      'query WebhookReplayPreview($id: ID!, $since: String!, $until: String) { webhookReplayPreview(id: ' +
      '$id, since: $since, until: $until) { count filtered since until } }',
    response: { field: 'webhookReplayPreview', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'replayMissingWebhookEvents',
    answers: [409],
    methods: ['POST'],
    paths: ['/api/webhooks/{id}/replay-missing'],
    summary: 'Replay missing events',
    description:
      "Sends, through the normal delivery path and in the order they happened, the events of the webhook's " +
      'subscribed types between since and until that it never got a delivery of (it was inactive, or not ' +
      'subscribed to the type yet) and its filters pass. Idempotent: a second run sends nothing new. At ' +
      'most 10,000 per run; remaining says how many are left. An inactive webhook is 409.',
    params: {
      path: { id: webhookId },
      body: { since: { description: 'ISO 8601 date-time' }, until: { description: 'ISO 8601 date-time; default now' } },
    },
    document:
      'mutation ReplayMissingWebhookEvents($id: ID!, $since: String!, $until: String) { ' +
      'replayMissingWebhookEvents(id: $id, since: $since, until: $until) { count remaining } }',
    response: { field: 'replayMissingWebhookEvents', shape: 'envelope', data: true },
    status: 202,
  }),
];
