import { FALLBACK_REASONS } from '../kernel/call-decision.js';

// The JSON Schema of a call's decision as call.started carries it (src/events/schemas.ts); its title names the
// GraphQL type that serves it (resolvers/live-event.types.ts).

type Schema = Record<string, unknown>;
const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });
const int = (description: string): Schema => ({ type: 'integer', format: 'int32', description });

/** How an inbound call was routed, when the provider asked (docs/adr/0068-decisions-in-the-call-path.md). */
export const decision: Schema = {
  type: 'object',
  title: 'CallDecision',
  additionalProperties: false,
  description:
    "How the call was routed: by the company's decision endpoint, its fallback, or the number's own agent. " +
    'Present on inbound calls the provider asked Switchboard to route.',
  required: ['decided_by', 'action'],
  properties: {
    decided_by: str('Who decided', { enum: ['endpoint', 'fallback', 'number'] }),
    action: str('What was decided', { enum: ['answer', 'forward', 'reject'] }),
    agent_id: nullable(str('The agent that answers (answer)')),
    forward_to: nullable(str('The number the call is forwarded to (forward), E.164')),
    fallback_reason: nullable(
      str('Why the fallback decided (fallback; null otherwise)', { enum: [...FALLBACK_REASONS, null] }),
    ),
    reason: nullable(str("The endpoint's reason for a reject, or in words why its answer was not taken (fallback)")),
    latency_ms: nullable(int('How long deciding took, ms, from the call arriving')),
  },
};
