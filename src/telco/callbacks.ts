import type { CompanyScope, ContextFactory, RequestContext } from '../context/request-context.js';
import { HttpError } from '../kernel/errors.js';
import type { CallDecision, ToolResult } from '../kernel/call-decision.js';
import { signatureMatches } from './signature.js';
import { INSTRUCTION_CONTENT_TYPE, instructionFor } from './instructions.js';
import {
  type CallAnalysisReported,
  type CallStatusChanged,
  directionOf,
  type InboundCallArrived,
  type Params,
  readCallAnalysis,
  readCallStatus,
  readInbound,
  readSmsInbound,
  readSmsStatus,
  readToolCall,
  readTranscriptTurn,
  sidesOf,
  type SmsReceived,
  type SmsStatusChanged,
  type ToolCalled,
  type TurnReported,
} from './callback-commands.js';

export type {
  CallAnalysisReported,
  CallStatusChanged,
  InboundCallArrived,
  SmsReceived,
  SmsStatusChanged,
  ToolCalled,
  TurnReported,
} from './callback-commands.js';

// The provider's callbacks, adapted: whose callback it is (the account it
// names, checked by its signature before anything is read or written), and
// its form parameters read into a typed command (callback-commands.ts). Past
// this module nothing sees a provider's parameter name.

/** What the callbacks change, as the services offer it (wired in the composition root). */
export interface CallbackPorts {
  /** The company whose provider account has this sid (the owner of `number` when several share it), and its auth token. */
  account(
    ctx: RequestContext,
    accountSid: string,
    number: string | undefined,
  ): Promise<{ companyId: number; authToken: string; scope?: CompanyScope } | undefined>;
  callStatusChanged(ctx: RequestContext, command: CallStatusChanged): Promise<void>;
  /** Decides an inbound call; runs its own units of work (nothing is held open while an endpoint is asked). */
  inboundCall(ctx: RequestContext, command: InboundCallArrived, startedAt: number): Promise<CallDecision>;
  /** Runs an agent's tool; runs its own units of work, like inboundCall. */
  toolCalled(ctx: RequestContext, command: ToolCalled, startedAt: number): Promise<ToolResult>;
  callAnalysisReported(ctx: RequestContext, command: CallAnalysisReported): Promise<void>;
  turnReported(ctx: RequestContext, command: TurnReported): Promise<void>;
  smsStatusChanged(ctx: RequestContext, command: SmsStatusChanged): Promise<void>;
  smsReceived(ctx: RequestContext, command: SmsReceived): Promise<void>;
}

export const CALLBACK_KINDS = [
  'voiceInbound',
  'voiceTool',
  'voiceStatus',
  'voiceAnalysis',
  'voiceTranscript',
  'smsStatus',
  'smsInbound',
] as const;
export type CallbackKind = (typeof CALLBACK_KINDS)[number];

/** The body of a callback's answer, when it has one (the inbound call's instruction). */
export interface CallbackAnswer {
  contentType: string;
  body: string;
}

/**
 * Each kind: the company's own number in it (which picks the company when
 * several share an account), its reading, and the change it makes, in one
 * unit of work; or `answer`, which runs its own and gives the answer's body.
 */
const CALLBACKS: Record<
  CallbackKind,
  {
    ownNumber(params: Params): string | undefined;
    apply?(ports: CallbackPorts, ctx: RequestContext, params: Params): Promise<void>;
    answer?(ports: CallbackPorts, ctx: RequestContext, params: Params, startedAt: number): Promise<CallbackAnswer>;
  }
> = {
  voiceInbound: {
    ownNumber: (params) => params.To,
    answer: async (ports, ctx, params, startedAt) => ({
      contentType: INSTRUCTION_CONTENT_TYPE,
      body: instructionFor(await ports.inboundCall(ctx, readInbound(params), startedAt)),
    }),
  },
  voiceTool: {
    ownNumber: (params) => sidesOf(directionOf(params.Direction), params.From, params.To).ours,
    answer: async (ports, ctx, params, startedAt) => {
      const outcome = await ports.toolCalled(ctx, readToolCall(params), startedAt);
      return {
        contentType: 'application/json; charset=utf-8',
        body: JSON.stringify({
          result: outcome.result,
          source: outcome.source,
          fallback_reason: outcome.fallbackReason,
          reason: outcome.reason,
        }),
      };
    },
  },
  voiceStatus: {
    ownNumber: (params) => sidesOf(directionOf(params.Direction), params.From, params.To).ours,
    apply: (ports, ctx, params) => ports.callStatusChanged(ctx, readCallStatus(params)),
  },
  voiceAnalysis: {
    ownNumber: (params) => sidesOf(directionOf(params.Direction), params.From, params.To).ours,
    apply: (ports, ctx, params) => ports.callAnalysisReported(ctx, readCallAnalysis(params)),
  },
  voiceTranscript: {
    ownNumber: (params) => sidesOf(directionOf(params.Direction), params.From, params.To).ours,
    apply: (ports, ctx, params) => ports.turnReported(ctx, readTranscriptTurn(params)),
  },
  smsStatus: {
    ownNumber: (params) => params.From,
    apply: (ports, ctx, params) => ports.smsStatusChanged(ctx, readSmsStatus(params)),
  },
  smsInbound: {
    ownNumber: (params) => params.To,
    apply: (ports, ctx, params) => ports.smsReceived(ctx, readSmsInbound(params)),
  },
};

export interface ReceivedCallback {
  kind: CallbackKind;
  /** Names the operation in logs and the context's actor. */
  operationId: string;
  params: Params;
  signature: string | undefined;
  /** The URLs the provider may have signed (the configured public address, or the one it reached). */
  signedUrls: string[];
  requestId: string;
  /** performance.now() when the callback arrived (a decision's deadline counts from it). */
  receivedAt: number;
}

export class TelcoCallbacks {
  constructor(
    private readonly contexts: ContextFactory,
    private readonly ports: CallbackPorts,
  ) {}

  /**
   * 403 unless the callback is signed by the account it names; then its
   * change, as the system for that company, in one unit of work (or the
   * answer of a kind that answers, which runs its own).
   */
  async receive(callback: ReceivedCallback): Promise<CallbackAnswer | undefined> {
    const { kind, params } = callback;
    const lookup = this.contexts.forMaintenance('provider callback').readOnly();
    const account = await this.ports.account(lookup, params.AccountSid ?? '', CALLBACKS[kind].ownNumber(params));
    if (
      !account ||
      !callback.signedUrls.some((url) => signatureMatches(callback.signature, url, params, account.authToken))
    ) {
      throw new HttpError(403, 'The callback signature is missing or wrong.');
    }
    const ctx = this.contexts.forSystem(account.companyId, callback.operationId, callback.requestId, account.scope);
    const { apply, answer } = CALLBACKS[kind];
    if (answer) return answer(this.ports, ctx, params, callback.receivedAt);
    await ctx.unitOfWork((uow) => apply!(this.ports, uow, params));
    return undefined;
  }
}
