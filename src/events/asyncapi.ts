import { graphqlName, typeNameOf as pascal } from '../kernel/vocabulary.js';
import { EVENT_DOCS } from './catalog.js';

// The live channel described for tools: an AsyncAPI 3 document of the
// GraphQL subscription `events`, generated from the event catalog (the same
// JSON Schemas as the webhook payloads) and committed as asyncapi.json. One
// message per event type: the `events` field's value as a subscriber gets it
// in graphql-ws's `next` message, with the selection
// `{ id type occurredAt data contact }`.

export const ASYNCAPI_FILE = 'asyncapi.json';

type Schema = Record<string, unknown>;

export function asyncApiDocument(version: string): Schema {
  const messages: Record<string, Schema> = {};
  for (const doc of EVENT_DOCS) {
    const schema = doc.schema as { properties: Record<string, Schema>; required: string[] };
    const { contact, ...dataProperties } = schema.properties;
    messages[pascal(doc.name)] = {
      name: doc.name,
      title: doc.name,
      summary: doc.description,
      contentType: 'application/json',
      payload: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'The live event id' },
          type: { type: 'string', const: graphqlName(doc.name), description: `GraphQL's name of ${doc.name}` },
          occurredAt: { type: 'string', format: 'date-time' },
          data: {
            type: 'object',
            properties: dataProperties,
            required: schema.required.filter((key) => key !== 'contact'),
            additionalProperties: false,
          },
          contact: { ...contact, description: 'The contact the event concerns, every field; null when none' },
        },
        required: ['id', 'type', 'occurredAt', 'data', 'contact'],
        additionalProperties: false,
      },
      examples: [
        {
          name: doc.name,
          payload: {
            id: '01JD8Z6Q3W4XK0V8N2B5C7D9EF',
            type: graphqlName(doc.name),
            occurredAt: '2026-11-18T17:03:04.000Z',
            data: Object.fromEntries(Object.entries(doc.example).filter(([key]) => key !== 'contact')),
            contact: doc.example.contact ?? null,
          },
        },
      ],
    };
  }
  const refs = Object.keys(messages).map((key) => ({ $ref: `#/channels/events/messages/${key}` }));
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Switchboard live events',
      version,
      description:
        "The company's events as they happen, the same events webhooks deliver, over the GraphQL " +
        'subscription `events` (graphql-ws, the graphql-transport-ws protocol, on /graphql). ' +
        'Authenticate with `connectionParams: { authorization: "Bearer <token>" }` (permission view-webhooks); subscribe with ' +
        '`subscription { events(types: [call_ended]) { id type occurredAt data contact } }`. Each event type ' +
        'is also a GraphQL type with typed `details` (schema.graphql, LiveEvent).',
    },
    defaultContentType: 'application/json',
    servers: {
      local: {
        host: 'localhost:3000',
        protocol: 'ws',
        pathname: '/graphql',
        description: 'A local service; wss and your own host in production',
      },
    },
    channels: {
      events: {
        address: '/graphql',
        title: 'events subscription',
        description:
          'graphql-ws `next` messages of `subscription { events { ... } }`: each carries one event as `payload.data.events`.',
        messages,
      },
    },
    operations: {
      receiveEvents: {
        action: 'receive',
        channel: { $ref: '#/channels/events' },
        summary: 'The company’s events as they happen',
        messages: refs,
      },
    },
  };
}
