import { DECISION_ANSWER_SCHEMA } from './answer.js';
import { PREDIAL_ANSWER_SCHEMA } from './predial.js';

// The decision request in the OpenAPI document's `webhooks` section: what
// Switchboard sends a decision endpoint and the answers it takes
// (docs/adr/0068-decisions-in-the-call-path.md).

type Schema = Record<string, unknown>;

const header = (name: string, description: string, schema: Schema): Schema => ({
  name,
  in: 'header',
  required: true,
  description,
  schema,
});

const REQUEST: Schema = {
  type: 'object',
  required: ['type', 'timestamp', 'data'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', const: 'call.inbound' },
    timestamp: { type: 'string', format: 'date-time', description: 'When Switchboard asked' },
    data: {
      type: 'object',
      additionalProperties: false,
      required: ['call_sid', 'caller', 'called', 'phone_number_id', 'company', 'contact', 'agent_id', 'deadline_ms'],
      properties: {
        call_sid: { type: 'string', description: "The provider's call id" },
        caller: { type: 'string', description: 'Who calls, E.164' },
        called: { type: 'string', description: "The company's number called, E.164" },
        phone_number_id: {
          type: ['string', 'null'],
          description: 'That number in the API; null when it is not one of the company numbers',
        },
        company: {
          type: 'object',
          required: ['id', 'name'],
          additionalProperties: false,
          properties: { id: { type: 'string' }, name: { type: 'string' } },
        },
        contact: {
          type: ['object', 'null'],
          description: 'The caller when the company knows the number; null for a first call',
          properties: {
            id: { type: 'string' },
            first_name: { type: ['string', 'null'] },
            last_name: { type: ['string', 'null'] },
            email: { type: ['string', 'null'] },
          },
        },
        agent_id: { type: ['string', 'null'], description: "The number's own AI agent" },
        deadline_ms: {
          type: 'integer',
          format: 'int32',
          description: 'The answer must arrive within this many ms of the call arriving',
        },
      },
    },
  },
};

const EXAMPLE = {
  type: 'call.inbound',
  timestamp: '2026-11-18T17:00:00.000Z',
  data: {
    call_sid: 'CA0123456789abcdef0123456789abcdef',
    caller: '+14155550100',
    called: '+12125550123',
    phone_number_id: '4',
    company: { id: '1', name: 'Acme Dental' },
    contact: { id: '7', first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
    agent_id: '3',
    deadline_ms: 2000,
  },
};

/**
 * The answer's schema as the document states it: each choice a named schema
 * the discriminator maps to (the checker compiles the same choices inline).
 */
function answerSchemas(
  name: string,
  { oneOf, description }: typeof DECISION_ANSWER_SCHEMA | typeof PREDIAL_ANSWER_SCHEMA,
): Record<string, Schema> {
  const named = Object.fromEntries(oneOf.map((choice) => [`${name}${choice.title}`, choice as unknown as Schema]));
  const ref = (schema: string) => `#/components/schemas/${schema}`;
  return {
    ...named,
    [name]: {
      description,
      oneOf: Object.keys(named).map((schema) => ({ $ref: ref(schema) })),
      discriminator: {
        propertyName: 'action',
        mapping: Object.fromEntries(
          oneOf.map((choice) => [choice.properties.action.const, ref(`${name}${choice.title}`)]),
        ),
      },
    },
  };
}

const PREDIAL_REQUEST: Schema = {
  type: 'object',
  required: ['type', 'timestamp', 'data'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', const: 'lead.predial' },
    timestamp: { type: 'string', format: 'date-time', description: 'When Switchboard asked' },
    data: {
      type: 'object',
      additionalProperties: false,
      required: [
        'campaign_id',
        'lead_id',
        'attempt',
        'phone_number',
        'from',
        'agent_id',
        'contact',
        'variables',
        'deadline_ms',
      ],
      properties: {
        campaign_id: { type: 'string' },
        lead_id: { type: 'string' },
        attempt: { type: 'integer', format: 'int32', description: 'Which attempt is about to be dialed, from 1' },
        phone_number: { type: 'string', description: 'The number to be dialed, E.164' },
        from: { type: 'string', description: "The company's number it is dialed from" },
        agent_id: { type: ['string', 'null'], description: "The campaign's AI agent" },
        contact: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            first_name: { type: ['string', 'null'] },
            last_name: { type: ['string', 'null'] },
            email: { type: ['string', 'null'] },
          },
        },
        variables: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: "The lead's variables, as its agent would be told them",
        },
        deadline_ms: { type: 'integer', format: 'int32', description: 'The answer must arrive within this many ms' },
      },
    },
  },
};

const TOOL_REQUEST: Schema = {
  type: 'object',
  required: ['type', 'timestamp', 'data'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', const: 'tool.call' },
    timestamp: { type: 'string', format: 'date-time', description: 'When Switchboard asked' },
    data: {
      type: 'object',
      additionalProperties: false,
      required: ['call_sid', 'call_id', 'agent_id', 'tool', 'arguments', 'deadline_ms'],
      properties: {
        call_sid: { type: 'string', description: "The provider's call id" },
        call_id: { type: 'string', description: 'The call in the API' },
        agent_id: { type: 'string', description: 'The agent whose tool it is' },
        tool: { type: 'string', description: "The tool's name" },
        arguments: {
          type: 'object',
          additionalProperties: true,
          description: "The arguments, valid against the tool's parameters",
        },
        deadline_ms: { type: 'integer', format: 'int32', description: 'The result must arrive within this many ms' },
      },
    },
  },
};
const TOOL_ANSWER: Schema = {
  type: 'object',
  required: ['result'],
  properties: { result: { description: 'Any JSON: put into the conversation as the tool result' } },
};

/** The signature headers of a request in the call path. */
const SIGNED = [
  header('webhook-id', 'msg_ and a ULID; the same on a hedged second request', { type: 'string', maxLength: 40 }),
  header('webhook-timestamp', 'Unix seconds when it was signed', {
    type: 'string',
    pattern: '^[0-9]{1,12}$',
    maxLength: 12,
  }),
  header('webhook-signature', 'v1,<base64 HMAC-SHA256 of id.timestamp.body>', { type: 'string', maxLength: 200 }),
];

export function decisionsSection(): { webhooks: Record<string, Schema>; schemas: Record<string, Schema> } {
  return {
    schemas: {
      DecisionRequest: REQUEST,
      ...answerSchemas('DecisionAnswer', DECISION_ANSWER_SCHEMA),
      ToolRequest: TOOL_REQUEST,
      ToolAnswer: TOOL_ANSWER,
      PredialRequest: PREDIAL_REQUEST,
      ...answerSchemas('PredialAnswer', PREDIAL_ANSWER_SCHEMA),
    },
    webhooks: {
      'call.inbound': {
        post: {
          operationId: 'decisionInboundCall',
          tags: ['Call routing'],
          summary: "Asks the company's decision endpoint how to route an inbound call",
          description:
            "Sent to the decision endpoint of the number called (else the company's) while the caller waits, signed " +
            'with the endpoint secret as a webhook is (Standard Webhooks). Answer 2xx with a decision within ' +
            '`deadline_ms`; a timeout, another status, an answer that does not validate against DecisionAnswer, or ' +
            "an agent that is not the company's gives the endpoint's fallback. After 5 failures in a row the " +
            'fallback answers at once for 30 s, then one call probes the endpoint again. Never retried after the ' +
            'deadline (docs/call-routing.md).',
          parameters: SIGNED,
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/DecisionRequest' }, example: EXAMPLE },
            },
          },
          responses: {
            '200': {
              description: 'The decision',
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/DecisionAnswer' },
                  examples: {
                    answer: { value: { action: 'answer', agent_id: '3', variables: { first_name: 'Ada' } } },
                    forward: { value: { action: 'forward', to: '+12125550142' } },
                    reject: { value: { action: 'reject', reason: 'blocked caller' } },
                  },
                },
              },
            },
            default: { description: "Anything else, or no answer within the deadline: the endpoint's fallback" },
          },
        },
      },
      'lead.predial': {
        post: {
          operationId: 'leadPredial',
          tags: ['Campaigns and leads'],
          summary: "Asks a campaign's pre-dial endpoint whether to dial a lead",
          description:
            "Sent to the campaign's decision endpoint just before each dial, signed with the endpoint secret " +
            '(Standard Webhooks). Answer 2xx within `deadline_ms` with `dial` (optionally with variables for the ' +
            "agent, over the lead's own) or `skip` (the lead is final, `skipped`). A timeout, another status or an " +
            "answer that does not validate gives the campaign's `predial_fallback` (docs/dialer.md).",
          parameters: SIGNED,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/PredialRequest' },
                example: {
                  type: 'lead.predial',
                  timestamp: '2026-11-18T17:00:00.000Z',
                  data: {
                    campaign_id: '12',
                    lead_id: '301',
                    attempt: 1,
                    phone_number: '+12125550101',
                    from: '+14155550100',
                    agent_id: '3',
                    contact: { id: '7', first_name: 'Ann', last_name: null, email: null },
                    variables: { plan: 'gold' },
                    deadline_ms: 2000,
                  },
                },
              },
            },
          },
          responses: {
            '200': {
              description: 'The decision',
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/PredialAnswer' },
                  examples: {
                    dial: { value: { action: 'dial', variables: { offer: 'winter-10' } } },
                    skip: { value: { action: 'skip', reason: 'customer renewed yesterday' } },
                  },
                },
              },
            },
            default: { description: "Anything else, or no answer within the deadline: the campaign's fallback" },
          },
        },
      },
      'tool.call': {
        post: {
          operationId: 'toolCall',
          tags: ['AI agents'],
          summary: "Asks a tool's endpoint for the result of an AI agent's tool call",
          description:
            "Sent to the tool's url while the caller waits, signed with the tool's secret (Standard Webhooks), after " +
            'the arguments were checked against the tool\'s parameters. Answer 2xx with `{ "result": … }` within ' +
            "`deadline_ms`; anything else gives the tool's fallback message. The tool shares the decision endpoints' " +
            'circuit breaker rules (docs/call-routing.md, Tools).',
          parameters: SIGNED,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/ToolRequest' },
                example: {
                  type: 'tool.call',
                  timestamp: '2026-11-18T17:00:30.000Z',
                  data: {
                    call_sid: 'CA0123456789abcdef0123456789abcdef',
                    call_id: '42',
                    agent_id: '3',
                    tool: 'check_availability',
                    arguments: { day: 'Tuesday' },
                    deadline_ms: 3000,
                  },
                },
              },
            },
          },
          responses: {
            '200': {
              description: 'The result',
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/ToolAnswer' },
                  example: { result: { slots: ['2026-12-01T15:00:00Z'] } },
                },
              },
            },
            default: { description: "Anything else, or no answer within the deadline: the tool's fallback message" },
          },
        },
      },
    },
  };
}
