import type { RequestContext } from '../context/request-context.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { DecisionEndpoint } from '../entities/decision-endpoint.entity.js';
import { BOUNDS } from '../kernel/bounds.js';
import type { CallDecision, InboundCallFacts } from '../kernel/call-decision.js';
import { ConflictError, UnprocessableError, ValidationError } from '../kernel/errors.js';
import type { IdCodec } from '../kernel/ids.js';
import { E164, Rules } from '../kernel/validation.js';
import type { DestinationPolicy } from '../webhooks/config/destination.js';
import { checkDeadline, checkUrl, revealSecret } from './endpoint-rules.js';
import { newSecret } from '../webhooks/config/signing.js';
import {
  checkCredentials,
  type CredentialsRecord,
  credentialsRecord,
  type EndpointCredentials,
  openCredentials,
  sealCredentials,
} from '../webhooks/config/credentials.js';
import { DECISION_ACTIONS, type DecisionAction, readAnswer } from './answer.js';
import type { DecisionCaller } from './caller.js';
import type { ConfigCache } from '../db/config-cache.js';
import type { BreakerView } from './endpoint-health.js';
import { decisionEndpointRepository, type EndpointFields } from '../repositories/decision-endpoint.repository.js';

// Decision endpoints (docs/adr/0068-decisions-in-the-call-path.md): the
// company's (and at most one per phone number) URL asked how to route an
// inbound call, its deadline and its fallback; and the decision itself,
// asked of the endpoint or taken from the fallback.

export const DEADLINE_DEFAULT_MS = 2000;
/** Endpoints a company may have: its own and one per number, up to this many. */
export const ENDPOINTS_MAX = 100;

export interface DecisionEndpointInput {
  url?: string | null;
  phoneNumberId?: string | null;
  deadlineMs?: number | null;
  hedge?: boolean | null;
  fallbackAction?: string | null;
  fallbackAgentId?: string | null;
  fallbackForwardTo?: string | null;
  /** OAuth2 client credentials and client TLS; null removes them, left out keeps them. */
  credentials?: EndpointCredentials | null;
}

export interface DecisionEndpointRecord {
  id: number;
  url: string;
  phoneNumberId: number | null;
  deadlineMs: number;
  hedge: boolean;
  fallback: { action: DecisionAction; agentId: number | null; forwardTo: string | null };
  breaker: BreakerView;
  credentials: CredentialsRecord | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A decision endpoint as the call path keeps it in memory: what asking it and its fallback need, its secret opened. */
export interface DecidingSnapshot {
  readonly id: number;
  companyId: number;
  url: string;
  secret: string;
  deadlineMs: number;
  hedge: boolean;
  credentialsSealed: string | null;
  fallbackAction: DecisionAction;
  fallbackAgentId: number | null;
  fallbackForwardTo: string | null;
}

export class DecisionEndpointService {
  constructor(
    private readonly ids: IdCodec,
    private readonly box: SecretBox,
    private readonly caller: DecisionCaller,
    private readonly settings: { destinations: DestinationPolicy },
    private readonly cache: ConfigCache,
  ) {}

  async list(ctx: RequestContext): Promise<DecisionEndpointRecord[]> {
    return (await decisionEndpointRepository.list(ctx)).map((endpoint) => this.record(endpoint));
  }

  async view(ctx: RequestContext, rawId: string): Promise<DecisionEndpointRecord> {
    return this.record(await this.find(ctx, rawId));
  }

  /** The signing secret of an endpoint (its requests' webhook-signature). */
  async secret(ctx: RequestContext, rawId: string): Promise<string> {
    return revealSecret(this.box, (await this.find(ctx, rawId)).secretSealed);
  }

  async create(
    ctx: RequestContext,
    input: DecisionEndpointInput,
  ): Promise<{ endpoint: DecisionEndpointRecord; secret: string }> {
    const fields = await this.checked(ctx, input, undefined);
    if ((await decisionEndpointRepository.count(ctx)) >= ENDPOINTS_MAX)
      throw new UnprocessableError(`A company has at most ${ENDPOINTS_MAX} decision endpoints.`);
    const secret = newSecret();
    const endpoint = await decisionEndpointRepository.create(ctx, fields, this.box.seal(secret));
    if (!endpoint) throw this.taken(fields);
    this.forgetAtCommit(ctx, endpoint);
    void this.caller.warm(endpoint.url, endpoint.credentialsSealed ?? null);
    return { endpoint: this.record(endpoint), secret };
  }

  async update(ctx: RequestContext, rawId: string, input: DecisionEndpointInput): Promise<DecisionEndpointRecord> {
    const endpoint = await decisionEndpointRepository.owned(ctx, this.ids, rawId, true);
    const fields = await this.checked(ctx, input, endpoint);
    const before = endpoint.url;
    if (!(await decisionEndpointRepository.update(ctx, endpoint, fields))) throw this.taken(fields);
    this.forgetAtCommit(ctx, endpoint);
    if (endpoint.url !== before) {
      // Another URL is another server: its breaker and answer times start afresh.
      ctx.afterCommit(() => this.caller.forget(keyOf(endpoint.id)));
      void this.caller.warm(endpoint.url, endpoint.credentialsSealed ?? null);
    }
    return this.record(endpoint);
  }

  async remove(ctx: RequestContext, rawId: string): Promise<boolean> {
    const endpoint = await decisionEndpointRepository.owned(ctx, this.ids, rawId, true);
    const id = endpoint.id;
    this.forgetAtCommit(ctx, endpoint);
    await decisionEndpointRepository.remove(ctx, endpoint);
    ctx.afterCommit(() => this.caller.forget(keyOf(id)));
    return true;
  }

  /**
   * The endpoint that decides a call to `called` (E.164): the number's own, else the company's; undefined without
   * one. Kept in memory until the company's endpoints or numbers change (db/config-cache.ts), its secret opened.
   */
  async endpointFor(ctx: RequestContext, companyId: number, called: string): Promise<DecidingSnapshot | undefined> {
    const kept = await this.cache.get(`endpoint:${companyId}:${called}`, async () => {
      const endpoint = await decisionEndpointRepository.forCalled(ctx, companyId, called);
      return { companyId, value: endpoint ? this.snapshot(endpoint) : null };
    });
    return kept ?? undefined;
  }

  private snapshot(endpoint: DecisionEndpoint): DecidingSnapshot {
    return {
      id: endpoint.id,
      companyId: endpoint.company.id,
      url: endpoint.url,
      secret: this.box.open(endpoint.secretSealed) ?? '',
      deadlineMs: endpoint.deadlineMs,
      hedge: endpoint.hedge,
      credentialsSealed: endpoint.credentialsSealed ?? null,
      fallbackAction: endpoint.fallbackAction as DecisionAction,
      fallbackAgentId: endpoint.fallbackAgent?.id ?? null,
      fallbackForwardTo: endpoint.fallbackForwardTo ?? null,
    };
  }

  /**
   * How to route an inbound call: the endpoint's answer within its deadline
   * (counted from `startedAt`, performance.now() when the call arrived), or
   * its fallback.
   */
  async decideInbound(endpoint: DecidingSnapshot, call: InboundCallFacts, startedAt: number): Promise<CallDecision> {
    const outcome = await this.caller.decide(
      {
        key: keyOf(endpoint.id),
        record: { kind: 'decision', id: endpoint.id, companyId: endpoint.companyId },
        url: endpoint.url,
        secret: endpoint.secret,
        deadlineMs: endpoint.deadlineMs,
        hedge: endpoint.hedge,
        credentialsSealed: endpoint.credentialsSealed,
      },
      requestBody(call, endpoint.deadlineMs),
      (text) => readAnswer(text, call.agents),
      startedAt,
    );
    const decision = outcome.value;
    if (decision) {
      return {
        decidedBy: 'endpoint',
        action: decision.action,
        agentId: decision.action === 'answer' ? (decision.agentId ?? call.numberAgentId) : null,
        forwardTo: decision.forwardTo ?? null,
        fallbackReason: null,
        reason: decision.reason ?? null,
        variables: decision.variables ?? {},
        latencyMs: outcome.latencyMs,
      };
    }
    return {
      decidedBy: 'fallback',
      action: endpoint.fallbackAction,
      agentId: endpoint.fallbackAction === 'answer' ? (endpoint.fallbackAgentId ?? call.numberAgentId) : null,
      forwardTo: endpoint.fallbackAction === 'forward' ? endpoint.fallbackForwardTo : null,
      fallbackReason: outcome.fallbackReason ?? null,
      reason: outcome.reason,
      variables: {},
      latencyMs: outcome.latencyMs,
    };
  }

  /** This process forgets the company's endpoints at the commit (the others, by the trigger's notification). */
  private forgetAtCommit(ctx: RequestContext, endpoint: DecisionEndpoint): void {
    const companyId = endpoint.company.id;
    ctx.afterCommit(() => this.cache.forget(companyId));
  }

  private find(ctx: RequestContext, rawId: string): Promise<DecisionEndpoint> {
    return decisionEndpointRepository.owned(ctx, this.ids, rawId);
  }

  private taken(fields: EndpointFields): ConflictError {
    return new ConflictError(
      fields.phoneNumberId === null
        ? 'The company already has a decision endpoint; update it instead.'
        : 'This phone number already has a decision endpoint; update it instead.',
    );
  }

  /** The input checked and merged over the current endpoint (an update leaves out what it keeps). */
  private async checked(
    ctx: RequestContext,
    input: DecisionEndpointInput,
    current: DecisionEndpoint | undefined,
  ): Promise<EndpointFields> {
    const b = BOUNDS.decisionEndpoint;
    const rules = new Rules();
    const url = input.url ?? current?.url;
    const action = input.fallbackAction ?? current?.fallbackAction;
    checkUrl(rules, url, b.url, this.settings.destinations);
    const deadline = input.deadlineMs ?? current?.deadlineMs ?? DEADLINE_DEFAULT_MS;
    checkDeadline(rules, deadline, b.deadlineMs);
    rules.required('fallbackAction', action).oneOf('fallbackAction', action, DECISION_ACTIONS);
    const phoneNumberId = this.optionalId(input.phoneNumberId, current?.phoneNumber?.id, 'phone_number');
    const agentId = this.optionalId(input.fallbackAgentId, current?.fallbackAgent?.id, 'agent');
    const forwardTo =
      input.fallbackForwardTo === undefined ? (current?.fallbackForwardTo ?? null) : input.fallbackForwardTo;
    if (action === 'forward' && !E164.test(forwardTo ?? ''))
      rules.add(
        'fallbackForwardTo',
        `The fallback forward to field must be an E.164 number when the fallback forwards (got ${JSON.stringify(forwardTo)}).`,
      );
    const credentials = checkCredentials(input.credentials, url, this.settings.destinations, rules);
    rules.check();
    const owned = await decisionEndpointRepository.owns(ctx, phoneNumberId || null, agentId || null);
    const errors: Record<string, string[]> = {};
    if (phoneNumberId === false || (phoneNumberId !== null && !owned.number))
      errors.phoneNumberId = ["The phone number id field must be one of the company's phone numbers."];
    if (agentId === false || (agentId !== null && !owned.agent))
      errors.fallbackAgentId = ["The fallback agent id field must be one of the company's agents."];
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return {
      url: url!,
      phoneNumberId: phoneNumberId as number | null,
      deadlineMs: deadline,
      hedge: input.hedge ?? current?.hedge ?? false,
      fallbackAction: action as DecisionAction,
      fallbackAgentId: action === 'answer' ? (agentId as number | null) : null,
      fallbackForwardTo: action === 'forward' ? forwardTo : null,
      credentialsSealed:
        credentials === undefined ? (current?.credentialsSealed ?? null) : sealCredentials(this.box, credentials),
    };
  }

  /** An optional id field: null to clear, undefined to keep, false for one that decodes to nothing. */
  private optionalId(
    raw: string | null | undefined,
    kept: number | null | undefined,
    kind: string,
  ): number | null | false {
    if (raw === undefined) return kept ?? null;
    if (raw === null || raw === '') return null;
    return this.ids.decode(raw, kind) ?? false;
  }

  private record(endpoint: DecisionEndpoint): DecisionEndpointRecord {
    return {
      id: endpoint.id,
      url: endpoint.url,
      phoneNumberId: endpoint.phoneNumber?.id ?? null,
      deadlineMs: endpoint.deadlineMs,
      hedge: endpoint.hedge,
      fallback: {
        action: endpoint.fallbackAction as DecisionAction,
        agentId: endpoint.fallbackAgent?.id ?? null,
        forwardTo: endpoint.fallbackForwardTo ?? null,
      },
      breaker: this.caller.breaker(keyOf(endpoint.id)),
      credentials: credentialsRecord(openCredentials(this.box, endpoint.credentialsSealed ?? null)),
      createdAt: endpoint.createdAt,
      updatedAt: endpoint.updatedAt,
    };
  }
}

/** An endpoint's breaker and metrics label. */
const keyOf = (id: number) => `decision:${id}`;

/** The decision request's body: what the endpoint is asked, as docs/api.md shows it. */
function requestBody(call: InboundCallFacts, deadlineMs: number): string {
  return JSON.stringify({
    type: 'call.inbound',
    timestamp: new Date().toISOString(),
    data: {
      call_sid: call.callSid,
      caller: call.caller,
      called: call.called,
      phone_number_id: call.phoneNumberId === null ? null : String(call.phoneNumberId),
      company: { id: String(call.companyId), name: call.companyName },
      contact: call.contact && {
        id: String(call.contact.id),
        first_name: call.contact.firstName,
        last_name: call.contact.lastName,
        email: call.contact.email,
      },
      agent_id: call.numberAgentId === null ? null : String(call.numberAgentId),
      deadline_ms: deadlineMs,
    },
  });
}
