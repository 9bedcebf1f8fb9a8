import { filterJsonSchema } from '../../events/filter-schema.js';
import { BOUNDS, PAGE_BOUND } from '../../kernel/bounds.js';
import { ALL_ID_FORMS } from '../../kernel/ids.js';
import type { RowParam, Route } from '../route.js';
import { PAGINATION } from './fragments.js';
import { CREDENTIALS_FIELDS, CREDENTIALS_VARIABLE, webhookCredentials } from './credentials.js';

// Webhook configuration and deliveries (docs/design.md §5). view-webhooks to
// read, manage-webhooks to change; path ids in every id form.

export const webhookId: RowParam = {
  type: 'id',
  idKind: 'webhook',
  idForms: ALL_ID_FORMS,
  description: 'Webhook id: numeric, base64 or encrypted',
};
export const deliveryId: RowParam = { variable: 'id', description: 'Delivery id (msg_...)' };
const WEBHOOK_FIELDS =
  'id title url method list_selection: listSelection form_data: formData events active ' +
  'disabled_reason: disabledReason hits last_hit: lastHit concurrency rate_limit: rateLimit ' +
  'paused_until: pausedUntil signature_scheme: signatureScheme public_key: publicKey ordering created_at: createdAt ' +
  `updated_at: updatedAt headers { name value secret } filters { event filter } ${CREDENTIALS_FIELDS}`;
export const DELIVERY_FIELDS =
  'id webhook_id: webhookId event status attempt_count: attemptCount next_attempt_at: nextAttemptAt ' +
  'last_attempt_at: lastAttemptAt last_status_code: lastStatusCode created_at: createdAt';
export const ATTEMPT_FIELDS =
  'number trigger attempted_at: attemptedAt status_code: statusCode duration_ms: durationMs response_body: responseBody error headers';
export const STORED_EVENT_FIELDS = 'id event occurred_at: occurredAt data';
export const filter: RowParam = {
  type: 'object',
  schema: filterJsonSchema({
    type: 'object',
    additionalProperties: true,
    description: 'A filter node: a comparison or a group',
  }),
  description:
    'A comparison { path, eq | ne | in | nin | gt | gte | lt | lte | exists: value } or a group { and: ' +
    '[...] }, { or: [...] }, { not: ... }, over paths of the event data; at most 50 nodes, 5 deep ' +
    '(docs/webhooks.md, Filters)',
};
const SECRET_FIELDS = 'secret previous_secret_expires_at: previousSecretExpiresAt';

const fields: Record<string, RowParam> = {
  title: { ...BOUNDS.webhook.title },
  url: {
    ...BOUNDS.webhook.url,
    description:
      'Where deliveries go, by scheme: http(s) (no credentials), amqp(s)://…?exchange=&routing_key=, ' +
      'nats://…?subject=, redis(s)://…/db?stream=&maxlen=, mqtt(s)://…?topic= (docs/webhooks.md); not a private ' +
      'address; a password is shown as ***',
  },
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
  ordering: {
    description:
      'subject: deliveries about one call, campaign, agent or contact one at a time in order (a failing one holds back ' +
      'only its subject); none (the default): as they come',
  },
  credentials: webhookCredentials,
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
  `$filters: [WebhookFilterInput!], $signatureScheme: SignatureScheme, $ordering: WebhookOrdering, ${CREDENTIALS_VARIABLE}`;
const INPUT =
  '{ title: $title, url: $url, method: $method, listSelection: $listSelection, formData: $formData, ' +
  'events: $events, active: $active, rateLimit: $rateLimit, headers: $headers, filters: $filters, ' +
  'signatureScheme: $signatureScheme, ordering: $ordering, credentials: $credentials }';

export const row = (r: Omit<Route, 'tag'>): Route => ({ tag: 'Webhooks', ...r });

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
];
