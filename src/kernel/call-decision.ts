// What decides an inbound call, as the call path and the decision endpoints
// share it (docs/adr/0068-decisions-in-the-call-path.md). The services read
// the call's facts and write the decision; the decision module asks the
// company's endpoint or applies its fallback.

/**
 * Why the fallback decided, as a closed set of codes a client may switch on
 * (the detail, in words, is the decision's `reason`).
 */
export const FALLBACK_REASONS = ['timeout', 'error', 'invalid', 'unreachable', 'breaker_open'] as const;
export type FallbackReason = (typeof FALLBACK_REASONS)[number];

/** The facts of an inbound call a decision is asked about. */
export interface InboundCallFacts {
  companyId: number;
  companyName: string;
  callSid: string;
  caller: string;
  called: string;
  /** The company's phone number called, when it is one of its own. */
  phoneNumberId: number | null;
  /** The AI agent that answers on that number. */
  numberAgentId: number | null;
  contact: { id: number; firstName: string | null; lastName: string | null; email: string | null } | null;
  /** The company's agents (an answer may name only these). */
  agents: ReadonlySet<number>;
}

/** A call's decision, whoever made it. */
export interface CallDecision {
  decidedBy: 'endpoint' | 'fallback' | 'number';
  action: 'answer' | 'forward' | 'reject';
  agentId: number | null;
  forwardTo: string | null;
  /** fallback: why, as a code; null otherwise. */
  fallbackReason: FallbackReason | null;
  /** endpoint: its reason for a reject; fallback: in words, why the endpoint's answer was not taken. */
  reason: string | null;
  variables: Record<string, string>;
  latencyMs: number | null;
}

/** An AI agent's tool call during a call, as the provider reports it. */
export interface ToolCallFacts {
  companyId: number;
  callId: number;
  callSid: string;
  /** The call's agent (whose tools these are). */
  agentId: number | null;
  tool: string;
  /** The arguments as the provider sent them (JSON text, checked against the tool's schema first). */
  argumentsText: string;
}

/** What goes back into the conversation. */
export interface ToolResult {
  /** endpoint: its answer; fallback: the tool's fallback message; invalid_arguments, unknown_tool: what is wrong (the endpoint is not asked). */
  source: 'endpoint' | 'fallback' | 'invalid_arguments' | 'unknown_tool';
  result: unknown;
  /** fallback: why, as a code; null otherwise. */
  fallbackReason: FallbackReason | null;
  /** In words: why the endpoint's answer was not taken, or what is wrong with the arguments. */
  reason: string | null;
  latencyMs: number | null;
}

/** The endpoint that decides a call, as the decision module found it: opaque to the services. */
export interface DecidingEndpoint {
  readonly id: number;
}

/** What the dialer asks a campaign's pre-dial endpoint about a lead it is about to dial (docs/dialer.md). */
export interface PredialFacts {
  companyId: number;
  /** The campaign's pre-dial endpoint, and what is done when it gives no answer in time. */
  endpointId: number;
  fallback: 'dial' | 'skip';
  campaignId: number;
  leadId: number;
  attempt: number;
  phoneNumber: string;
  from: string;
  agentId: number | null;
  contact: { id: number; firstName: string | null; lastName: string | null; email: string | null };
  /** The lead's variables, as its agent would be told them. */
  variables: Record<string, string>;
}

/** Whether a lead is dialed, and with what its agent is told on top of the lead's own variables. */
export interface PredialDecision {
  decidedBy: 'endpoint' | 'fallback';
  action: 'dial' | 'skip';
  variables: Record<string, string>;
  fallbackReason: FallbackReason | null;
  /** endpoint: its reason for a skip; fallback: in words, why its answer was not taken. */
  reason: string | null;
  latencyMs: number | null;
}
