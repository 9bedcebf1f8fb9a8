import type { RequestContext } from '../context/request-context.js';
import { NotFoundError } from '../kernel/errors.js';
import type { LiveEvents, SubscriptionGuard, TranscriptTurn } from './live-events.js';
import type { IdCodec } from '../kernel/ids.js';
import { callRepository } from '../repositories/call.repository.js';
import { decisionOf } from './calls/records.js';
import type { TurnReported } from '../telco/callbacks.js';

// Live transcripts (Retell's and Vapi's transcript updates): the provider
// reports a call's conversation turn by turn while it goes on; each turn is
// kept once (a repeated callback adds nothing and announces nothing) and
// announced to the call's GraphQL subscribers in every API process. They
// are not webhook events: a call makes dozens of turns, and subscribers of
// one call ask for them.

/** A turn to keep, of a call found already. */
export type CallTurnWritten = Omit<TurnReported, 'callSid'> & { callId: number };

export class CallTranscriptService {
  constructor(
    private readonly live: LiveEvents,
    private readonly ids: IdCodec,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The provider's transcript callback: keeps the turn and announces it, once; a call the account does not know is left alone. */
  async turnReported(ctx: RequestContext, report: TurnReported): Promise<void> {
    const call = await callRepository.byProviderId(ctx, report.callSid);
    if (call)
      await this.turnsOf(ctx, [
        { callId: call.id, sequence: report.sequence, speaker: report.speaker, text: report.text },
      ]);
  }

  /**
   * Keeps turns of calls already found (tool calls') and announces each, once: one statement for them all, and an
   * announcement per turn kept.
   */
  async turnsOf(ctx: RequestContext, turns: CallTurnWritten[]): Promise<void> {
    const at = this.clock();
    const kept = await callRepository.addTurns(ctx, turns, at);
    for (const turn of turns)
      if (kept.delete(`${turn.callId}:${turn.sequence}`)) await this.live.publishTurn(ctx, { ...turn, at });
  }

  /** The company's calls in progress, newest first (at most 50): what a live view lists. */
  async liveCalls(ctx: RequestContext) {
    return (await callRepository.inProgress(ctx, 50)).map((call) => ({
      id: call.id,
      status: call.status,
      direction: call.direction,
      fromNumber: call.fromNumber,
      toNumber: call.toNumber,
      startedAt: call.startedAt,
      agentName: call.agent?.name ?? null,
      decision: decisionOf(call),
    }));
  }

  /** The call's transcript so far, in order; 404 for another company's, an unknown or a malformed id. */
  async turns(ctx: RequestContext, rawCallId: string): Promise<TranscriptTurn[]> {
    return this.turnsOfCall(ctx, await this.callOf(ctx, rawCallId));
  }

  private async turnsOfCall(ctx: RequestContext, callId: number): Promise<TranscriptTurn[]> {
    return (await callRepository.turns(ctx, callId)).map((turn) => ({
      callId,
      sequence: turn.sequence,
      speaker: turn.speaker,
      text: turn.text,
      at: turn.createdAt,
    }));
  }

  /**
   * The call's turns from now on, for a subscriber who may see the company's calls; with `after` (a sequence, -1 for
   * all), first those kept after it: with no gap between what the subscriber read before and what it is sent.
   */
  async subscribe(
    ctx: RequestContext,
    rawCallId: string,
    guard: SubscriptionGuard,
    after: number | null = null,
  ): Promise<AsyncIterableIterator<TranscriptTurn>> {
    const callId = await this.callOf(ctx, rawCallId);
    const past =
      after === null
        ? undefined
        : async () => (await this.turnsOfCall(ctx.readOnly(), callId)).filter((turn) => turn.sequence > after);
    return this.live.transcript(guard.viewer.company.id, callId, guard, past);
  }

  private async callOf(ctx: RequestContext, rawCallId: string): Promise<number> {
    const id = this.ids.decode(rawCallId, 'call');
    if (id === undefined || !(await callRepository.owned(ctx, id))) throw new NotFoundError('Call');
    return id;
  }
}
