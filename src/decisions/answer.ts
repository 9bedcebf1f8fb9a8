import { Ajv, type ValidateFunction } from 'ajv';

// What a decision endpoint is asked and may answer (docs/adr/0068-decisions-in-the-call-path.md).
// The answer's JSON Schema is both what the OpenAPI document states and what
// the answer is checked against (ajv): an answer that does not validate is
// the fallback's, with ajv's first error as the reason.

export const DECISION_ACTIONS = ['answer', 'forward', 'reject'] as const;
export type DecisionAction = (typeof DECISION_ACTIONS)[number];

/** A variable's name, as an AI agent's prompt template names it. */
export const VARIABLE_NAME = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';
export const VARIABLES_MAX = 50;
export const VARIABLE_VALUE_MAX = 1000;
export const REJECT_REASON_MAX = 200;

/** An answer's variables for the agent: what the call path and the dialer's pre-dial answer both take. */
export const VARIABLES_SCHEMA = {
  type: 'object',
  maxProperties: VARIABLES_MAX,
  propertyNames: { pattern: VARIABLE_NAME },
  additionalProperties: { type: 'string', maxLength: VARIABLE_VALUE_MAX },
} as const;

export const DECISION_ANSWER_SCHEMA = {
  type: 'object',
  description: 'What to do with the call: answer with an agent, forward to a number, or reject.',
  required: ['action'],
  properties: { action: { type: 'string', enum: ['answer', 'forward', 'reject'] } },
  discriminator: { propertyName: 'action' },
  oneOf: [
    {
      type: 'object',
      title: 'Answer',
      required: ['action'],
      additionalProperties: false,
      properties: {
        action: { const: 'answer' },
        agent_id: {
          type: 'string',
          pattern: '^[1-9][0-9]{0,9}$',
          description: "One of the company's agents; left out, the number's own agent",
        },
        variables: { ...VARIABLES_SCHEMA, description: "Dynamic variables for the agent's prompt" },
      },
    },
    {
      type: 'object',
      title: 'Forward',
      required: ['action', 'to'],
      additionalProperties: false,
      properties: {
        action: { const: 'forward' },
        to: { type: 'string', pattern: '^\\+[1-9][0-9]{1,14}$', description: 'E.164 number to forward to' },
      },
    },
    {
      type: 'object',
      title: 'Reject',
      required: ['action'],
      additionalProperties: false,
      properties: {
        action: { const: 'reject' },
        reason: { type: 'string', maxLength: REJECT_REASON_MAX, description: 'Recorded with the call' },
      },
    },
  ],
} as const;

/** A decision as the call keeps it, whoever made it. */
export interface Decision {
  action: DecisionAction;
  /** answer: the agent (null: none known); forward: the number. */
  agentId?: number | null;
  forwardTo?: string;
  reason?: string | null;
  variables?: Record<string, string>;
}

const ajv = new Ajv({ discriminator: true, allErrors: false, strict: true });
const validate = ajv.compile(DECISION_ANSWER_SCHEMA);

/** An answer's text parsed and checked against its schema, or why it is not taken (the fallback's reason). */
export function validated(text: string, check: ValidateFunction): object | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'the answer is not JSON';
  }
  if (!check(json)) {
    const [first] = check.errors ?? [];
    return `the answer does not validate: ${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`;
  }
  return json as object;
}

/** The answer's text read as a decision, or why it is not one (the fallback's reason). */
export function readAnswer(text: string, agents: ReadonlySet<number>): Decision | string {
  const json = validated(text, validate);
  if (typeof json === 'string') return json;
  const answer = json as {
    action: DecisionAction;
    agent_id?: string;
    variables?: Record<string, string>;
    to?: string;
    reason?: string;
  };
  if (answer.action === 'forward') return { action: 'forward', forwardTo: answer.to };
  if (answer.action === 'reject') return { action: 'reject', reason: answer.reason ?? null };
  if (answer.agent_id !== undefined && !agents.has(Number(answer.agent_id)))
    return `the answer names agent ${answer.agent_id}, which is not one of the company's agents`;
  return {
    action: 'answer',
    agentId: answer.agent_id === undefined ? undefined : Number(answer.agent_id),
    variables: answer.variables ?? {},
  };
}
