import { EVENT_DOCS } from '../../events/catalog.js';
import { PAYLOAD_VERSION } from './payload.js';
import { FILTER_SCHEMA_REF, filterJsonSchema } from '../../events/filter-schema.js';

// The deliveries as an OpenAPI 3.1 `webhooks` section, from the event catalog:
// per event, the POST a receiver gets (the envelope, the event's data by
// $ref, the signature headers) and what its answer means. Code generators
// (openapi-typescript and the like) make a typed handler from it.

type Schema = Record<string, unknown>;

/** `call.ended` is CallEnded, `agent.status_changed` AgentStatusChanged. */
const typeName = (event: string) =>
  event
    .split(/[._]/)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');

const header = (name: string, description: string, schema: Schema): Schema => ({
  name,
  in: 'header',
  required: true,
  description,
  schema,
});

/** The headers of every attempt (docs/webhooks.md, "The request"), with the event's own name. */
const headers = (event: string): Schema[] => [
  header('webhook-id', 'The delivery id, the same on every attempt: de-duplicate on it', {
    type: 'string',
    pattern: '^msg_[0-9A-HJKMNP-TV-Z]{26}$',
    maxLength: 30,
  }),
  header('webhook-timestamp', 'Unix seconds of this attempt; refuse one far from now', {
    type: 'string',
    pattern: '^[0-9]{1,12}$',
    maxLength: 12,
  }),
  header(
    'webhook-signature',
    'Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> with the secret, or for a webhook whose ' +
      'signature_scheme is v1a, v1a,<base64 Ed25519 signature of id.timestamp.body> (verify with its public key); ' +
      'two, space-separated, while a rotated secret or key is in its grace',
    {
      type: 'string',
      pattern: '^(v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)?|v1a,[A-Za-z0-9+/]{86}==( v1a,[A-Za-z0-9+/]{86}==)?)$',
      // Two Ed25519 signatures of 4 + 88 characters and the space between them.
      maxLength: 185,
    },
  ),
  header('x-webhook-id', 'The same as webhook-id', {
    type: 'string',
    pattern: '^msg_[0-9A-HJKMNP-TV-Z]{26}$',
    maxLength: 30,
  }),
  header('x-webhook-event', 'The event name', { type: 'string', const: event }),
  header('x-webhook-attempt', '1 to 5, continuing on manual re-sends', {
    type: 'string',
    pattern: '^[1-9][0-9]{0,9}$',
    maxLength: 10,
  }),
  header(
    'x-webhook-signature',
    'sha256=<hex HMAC-SHA256 of the body without metadata.signature>, the same as metadata.signature',
    { type: 'string', pattern: '^sha256=[0-9a-f]{64}$', maxLength: 71 },
  ),
];

/** What the receiver's answer means, the same for every event. */
const REPLIES: Schema = {
  '200': { description: 'Any 2xx within the timeout (10 s by default): delivered, never sent again' },
  '410': { description: 'Gone: the webhook is switched off (disabled_reason gone); no further attempt' },
  '429': {
    description:
      'Too many: a failure, retried on the schedule; a Retry-After of up to an hour pauses the webhook until then',
  },
  default: {
    description:
      'Anything else (another status, a redirect, which is not followed, a timeout, a refused connection): ' +
      'a failure, retried 30 s, 2 min, 8 min and 32 min later',
  },
};

/** The `webhooks` entries and the component schemas they refer to: each event's envelope and data, and the shared metadata. */
export function webhooksSection(): { webhooks: Record<string, Schema>; schemas: Record<string, Schema> } {
  const webhooks: Record<string, Schema> = {};
  const schemas: Record<string, Schema> = {
    WebhookMetadata: {
      type: 'object',
      properties: {
        version: { type: 'string', const: PAYLOAD_VERSION },
        signature: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$', description: 'The same as x-webhook-signature' },
      },
      required: ['version', 'signature'],
      additionalProperties: false,
    },
    [FILTER_SCHEMA_REF.split('/').at(-1)!]: filterJsonSchema({ $ref: FILTER_SCHEMA_REF }),
  };
  for (const doc of EVENT_DOCS) {
    const name = typeName(doc.name);
    const { $schema: _dialect, ...data } = doc.schema;
    schemas[`${name}Data`] = data;
    schemas[`${name}Event`] = {
      type: 'object',
      description: `${doc.name}: ${doc.description}`,
      properties: {
        event: { type: 'string', const: doc.name },
        timestamp: { type: 'string', format: 'date-time', description: 'When the event happened' },
        webhook_id: { type: 'string', pattern: '^[0-9]+$', description: 'The id of the webhook this delivery is for' },
        data: { $ref: `#/components/schemas/${name}Data` },
        metadata: { $ref: '#/components/schemas/WebhookMetadata' },
      },
      required: ['event', 'timestamp', 'webhook_id', 'data', 'metadata'],
      additionalProperties: false,
    };
    webhooks[doc.name] = {
      post: {
        operationId: `webhook${name}`,
        tags: ['Webhooks'],
        summary: doc.description,
        description: `Sent to each active webhook of the company subscribed to ${doc.name}. Verify the signature before trusting the body (docs/webhooks.md).`,
        parameters: headers(doc.name),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: `#/components/schemas/${name}Event` },
              example: {
                event: doc.name,
                timestamp: '2026-11-18T17:00:00.000Z',
                webhook_id: '1',
                data: doc.example,
                metadata: { version: PAYLOAD_VERSION, signature: `sha256=${'0'.repeat(64)}` },
              },
            },
          },
        },
        responses: REPLIES,
      },
    };
  }
  return { webhooks, schemas };
}
