import { Ajv } from 'ajv';
import type { RequestContext } from '../context/request-context.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { PredialDecision, PredialFacts } from '../kernel/call-decision.js';
import { decisionEndpointRepository } from '../repositories/decision-endpoint.repository.js';
import { REJECT_REASON_MAX, VARIABLES_SCHEMA, validated } from './answer.js';
import type { DecisionCaller } from './caller.js';

// The pre-dial decision (docs/dialer.md, "Asking before each dial"): before the dialer dials a campaign's lead, it asks
// the campaign's decision endpoint, signed as every question of the call path is, whether to dial it (and with what
// variables for its agent) or skip it. The endpoint's deadline, breaker, hedge, credentials and health are those of the
// call path's decisions (caller.ts); with no valid answer in time, the campaign's fallback (`dial` or `skip`) decides.

export const PREDIAL_ANSWER_SCHEMA = {
  type: 'object',
  description: 'Whether to dial the lead now: dial (optionally with variables for its agent), or skip it for good',
  required: ['action'],
  properties: { action: { type: 'string', enum: ['dial', 'skip'] } },
  discriminator: { propertyName: 'action' },
  oneOf: [
    {
      type: 'object',
      title: 'Dial',
      required: ['action'],
      additionalProperties: false,
      properties: {
        action: { const: 'dial' },
        variables: {
          ...VARIABLES_SCHEMA,
          description: "Variables for the agent's prompt, over the lead's own (the same name: this one)",
        },
      },
    },
    {
      type: 'object',
      title: 'Skip',
      required: ['action'],
      additionalProperties: false,
      properties: {
        action: { const: 'skip' },
        reason: { type: 'string', maxLength: REJECT_REASON_MAX, description: "Kept on the lead's attempt" },
      },
    },
  ],
} as const;

const validate = new Ajv({ discriminator: true, allErrors: false, strict: true }).compile(PREDIAL_ANSWER_SCHEMA);

type Answer = { action: 'dial'; variables: Record<string, string> } | { action: 'skip'; reason: string | null };

/** The answer's text read as a pre-dial decision, or why it is not one (the fallback's reason). */
function readPredialAnswer(text: string): Answer | string {
  const json = validated(text, validate);
  if (typeof json === 'string') return json;
  const answer = json as { action: 'dial' | 'skip'; variables?: Record<string, string>; reason?: string };
  return answer.action === 'dial'
    ? { action: 'dial', variables: answer.variables ?? {} }
    : { action: 'skip', reason: answer.reason ?? null };
}

export class PredialDecider {
  constructor(
    private readonly box: SecretBox,
    private readonly caller: DecisionCaller,
  ) {}

  /** Asks the campaign's endpoint about the lead, within its deadline; its fallback when no answer is taken. */
  async decide(ctx: RequestContext, facts: PredialFacts): Promise<PredialDecision> {
    const startedAt = performance.now();
    const endpoint = await decisionEndpointRepository.ofCompany(ctx, facts.endpointId);
    // Removed since the campaign named it (its campaigns then ask no one): the lead is dialed.
    if (!endpoint) return fallback('dial', null, 'the decision endpoint was removed', null);
    const outcome = await this.caller.decide(
      {
        key: `decision:${endpoint.id}`,
        record: { kind: 'decision', id: endpoint.id, companyId: facts.companyId },
        url: endpoint.url,
        secret: this.box.open(endpoint.secretSealed) ?? '',
        deadlineMs: endpoint.deadlineMs,
        hedge: endpoint.hedge,
        credentialsSealed: endpoint.credentialsSealed ?? null,
      },
      requestBody(facts, endpoint.deadlineMs),
      readPredialAnswer,
      startedAt,
    );
    const answer = outcome.value;
    if (!answer) return fallback(facts.fallback, outcome.fallbackReason ?? null, outcome.reason, outcome.latencyMs);
    return {
      decidedBy: 'endpoint',
      action: answer.action,
      variables: answer.action === 'dial' ? answer.variables : {},
      fallbackReason: null,
      reason: answer.action === 'skip' ? answer.reason : null,
      latencyMs: outcome.latencyMs,
    };
  }
}

function fallback(
  action: 'dial' | 'skip',
  fallbackReason: PredialDecision['fallbackReason'],
  reason: string | null,
  latencyMs: number | null,
): PredialDecision {
  return { decidedBy: 'fallback', action, variables: {}, fallbackReason, reason, latencyMs };
}

/** The question's body, as docs/dialer.md shows it (the OpenAPI document's PredialRequest). */
function requestBody(facts: PredialFacts, deadlineMs: number): string {
  return JSON.stringify({
    type: 'lead.predial',
    timestamp: new Date().toISOString(),
    data: {
      campaign_id: String(facts.campaignId),
      lead_id: String(facts.leadId),
      attempt: facts.attempt,
      phone_number: facts.phoneNumber,
      from: facts.from,
      agent_id: facts.agentId === null ? null : String(facts.agentId),
      contact: {
        id: String(facts.contact.id),
        first_name: facts.contact.firstName,
        last_name: facts.contact.lastName,
        email: facts.contact.email,
      },
      variables: facts.variables,
      deadline_ms: deadlineMs,
    },
  });
}
