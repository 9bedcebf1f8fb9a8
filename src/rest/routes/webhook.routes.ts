import { BOUNDS, PAGE_BOUND } from '../../kernel/bounds.js';
import { ALL_ID_FORMS } from '../../kernel/ids.js';
import type { RowParam, Route } from '../route.js';
import { PAGINATION } from './fragments.js';

// Webhook configuration and deliveries (docs/design.md §5). view-webhooks to
// read, manage-webhooks to change; path ids in every id form.

const webhookId: RowParam = {
  type: 'id',
  idKind: 'webhook',
  idForms: ALL_ID_FORMS,
  description: 'Webhook id: numeric, base64 or encrypted',
};
const deliveryId: RowParam = { variable: 'id', description: 'Delivery id (msg_...)' };
const WEBHOOK_FIELDS =
  'id title url method list_selection: listSelection form_data: formData events active ' +
  'disabled_reason: disabledReason hits last_hit: lastHit concurrency rate_limit: rateLimit ' +
  'paused_until: pausedUntil signature_scheme: signatureScheme public_key: publicKey created_at: createdAt ' +
  'updated_at: updatedAt headers { name value secret } filters { event filter }';
const DELIVERY_FIELDS =
  'id webhook_id: webhookId event status attempt_count: attemptCount next_attempt_at: nextAttemptAt ' +
  'last_attempt_at: lastAttemptAt last_status_code: lastStatusCode created_at: createdAt';
const ATTEMPT_FIELDS =
  'number trigger attempted_at: attemptedAt status_code: statusCode duration_ms: durationMs response_body: responseBody error headers';
const STORED_EVENT_FIELDS = 'id event occurred_at: occurredAt data';
const filter: RowParam = {
  type: 'object',
  description:
    'A comparison { path, eq | ne | in | nin | gt | gte | lt | lte | exists: value } or a group { and: ' +
    '[...] }, { or: [...] }, { not: ... }, over paths of the event data; at most 50 nodes, 5 deep ' +
    '(docs/webhooks.md, Filters)',
};
const SECRET_FIELDS = 'secret previous_secret_expires_at: previousSecretExpiresAt';

const fields: Record<string, RowParam> = {
  title: { ...BOUNDS.webhook.title },
  url: { ...BOUNDS.webhook.url, description: 'http or https, no credentials, not a private address' },
  method: { description: 'Always POST' },
  list_selection: { description: 'A preset that fills form_data' },
  form_data: { items: {}, description: 'Contact fields each payload carries in data.contact' },
  events: { items: {}, description: 'One or more of the event types (GET /api/webhooks/event-types)' },
  active: { description: 'Default true; true also clears disabled_reason' },
  rate_limit: { ...BOUNDS.webhook.rateLimit, description: 'Deliveries per second at most; null removes the limit' },
  headers: {
    ...BOUNDS.webhook.headers,
    items: { fields: { name: { ...BOUNDS.webhook.headerName }, value: { ...BOUNDS.webhook.headerValue }, secret: {} } },
    description:
      'Custom headers sent on every attempt; replaces them all (left out: kept). A secret value is stored ' +
      'encrypted and never shown again; give a secret header without a value to keep the one it has.',
  },
  signature_scheme: {
    description:
      'v1 (HMAC-SHA256 with the secret, the default) or v1a (Ed25519: a key pair is made and public_key shown; ' +
      "the body keeps the specification's sha256= signature)",
  },
  filters: {
    items: { fields: { event: { description: 'An event type the webhook subscribes to' }, filter } },
    description:
      'Payload filters, one per subscribed event type at most: an event its filter turns away makes no ' +
      'delivery. Replaces them all (left out: kept, but for events no longer subscribed).',
  },
};
const INPUT_VARIABLES =
  '$title: String, $url: String, $method: String, $listSelection: ListSelection, $formData: [String!], ' +
  '$events: [WebhookEvent!], $active: Boolean, $rateLimit: Int, $headers: [WebhookHeaderInput!], ' +
  '$filters: [WebhookFilterInput!], $signatureScheme: SignatureScheme';
const INPUT =
  '{ title: $title, url: $url, method: $method, listSelection: $listSelection, formData: $formData, ' +
  'events: $events, active: $active, rateLimit: $rateLimit, headers: $headers, filters: $filters, ' +
  'signatureScheme: $signatureScheme }';

const row = (r: Omit<Route, 'tag'>): Route => ({ tag: 'Webhooks', ...r });

export const webhookRoutes: Route[] = [
  row({
    operationId: 'listWebhooks',
    methods: ['GET'],
    paths: ['/api/webhooks'],
    summary: 'List webhooks',
    description: 'Webhooks of the company, newest first.',
    params: {
      query: {
        per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100' },
        page: { ...PAGE_BOUND, description: 'Default 1' },
        search: { ...BOUNDS.search, description: 'Matches title and URL' },
        event: { description: 'Only webhooks subscribed to this event' },
        active: {},
      },
    },
    document: `query ListWebhooks($search: String, $event: WebhookEvent, $active: Boolean, $page: Int, $perPage: Int) {
      webhooks(search: $search, event: $event, active: $active, page: $page, perPage: $perPage) { records { ${WEBHOOK_FIELDS} } ${PAGINATION} } }`,
    response: { field: 'webhooks', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'createWebhook',
    methods: ['POST'],
    paths: ['/api/webhooks'],
    summary: 'Create a webhook',
    description: 'The response carries the signing secret; afterwards only GET /api/webhooks/{id}/secret shows it.',
    params: {
      body: {
        ...fields,
        title: { ...fields.title, required: true },
        url: { ...fields.url, required: true },
        events: { ...fields.events, required: true },
      },
    },
    document:
      `mutation ` +
      `CreateWebhook(${INPUT_VARIABLES.replace('$title: String', '$title: String!')
        .replace('$url: String', '$url: String!')
        .replace('$events: [WebhookEvent!]', '$events: [WebhookEvent!]!')}) ` +
      `{ createWebhook(input: ${INPUT}) { webhook { ${WEBHOOK_FIELDS} } secret } }`,
    response: {
      field: 'createWebhook',
      shape: 'envelope',
      message: 'Webhook created successfully.',
      data: true,
      spread: 'webhook',
    },
    status: 201,
  }),
  row({
    operationId: 'webhookEventTypes',
    methods: ['GET'],
    paths: ['/api/webhooks/event-types'],
    summary: 'Event types',
    description: 'The sixteen events: name, category, description, JSON Schema of data, an example.',
    params: {},
    document: 'query WebhookEventTypes { webhookEventTypes { name category description schema example } }',
    response: { field: 'webhookEventTypes', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'webhookFormFields',
    methods: ['GET'],
    paths: ['/api/webhooks/form-fields'],
    summary: 'Form data fields',
    description: 'Contact field names and the list selections with their fields.',
    params: {},
    document:
      'query WebhookFormFields { webhookFormFields { fields list_selections: listSelections { name fields } } }',
    response: { field: 'webhookFormFields', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'getWebhook',
    methods: ['GET'],
    paths: ['/api/webhooks/{id}'],
    summary: 'One webhook',
    params: { path: { id: webhookId } },
    document: `query GetWebhook($id: ID!) { webhook(id: $id) { ${WEBHOOK_FIELDS} } }`,
    response: { field: 'webhook', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'updateWebhook',
    methods: ['PUT'],
    paths: ['/api/webhooks/{id}'],
    summary: 'Update a webhook',
    description: 'Any field but id and hits.',
    params: { path: { id: webhookId }, body: fields },
    document: `mutation UpdateWebhook($id: ID!, ${INPUT_VARIABLES}) { updateWebhook(id: $id, input: ${INPUT}) { ${WEBHOOK_FIELDS} } }`,
    response: { field: 'updateWebhook', shape: 'envelope', message: 'Webhook updated successfully.', data: true },
  }),
  row({
    operationId: 'deleteWebhook',
    methods: ['DELETE'],
    paths: ['/api/webhooks/{id}'],
    summary: 'Delete a webhook',
    description: 'Its pending deliveries are never sent.',
    params: { path: { id: webhookId } },
    document: 'mutation DeleteWebhook($id: ID!) { deleteWebhook(id: $id) }',
    response: { field: 'deleteWebhook', shape: 'envelope', message: 'Webhook deleted successfully.' },
  }),
  row({
    operationId: 'webhookSecret',
    methods: ['GET'],
    paths: ['/api/webhooks/{id}/secret'],
    summary: 'Reveal the signing secret',
    params: { path: { id: webhookId } },
    document: `query WebhookSecret($id: ID!) { webhookSecret(id: $id) { ${SECRET_FIELDS} } }`,
    response: { field: 'webhookSecret', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'webhookPublicKey',
    methods: ['GET'],
    paths: ['/api/webhooks/{id}/public-key'],
    summary: 'The Ed25519 public key',
    description: 'For a v1a webhook: the key its webhook-signature verifies with, and the previous one in a rotation.',
    params: { path: { id: webhookId } },
    document: `query WebhookPublicKey($id: ID!) { webhookPublicKey(id: $id) {
      public_key: publicKey previous_public_key: previousPublicKey previous_public_key_expires_at: previousPublicKeyExpiresAt } }`,
    response: { field: 'webhookPublicKey', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'rotateWebhookSecret',
    methods: ['POST'],
    paths: ['/api/webhooks/{id}/rotate-secret'],
    summary: 'Rotate the signing secret',
    description:
      'The previous secret (and, for v1a, the previous Ed25519 key) keeps signing (a second signature) for WEBHOOK_ROTATION_GRACE.',
    params: { path: { id: webhookId } },
    document: `mutation RotateWebhookSecret($id: ID!) { rotateWebhookSecret(id: $id) { ${SECRET_FIELDS} } }`,
    response: { field: 'rotateWebhookSecret', shape: 'envelope', data: true },
  }),
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
