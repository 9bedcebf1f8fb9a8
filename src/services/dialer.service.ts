import type { RequestContext } from '../context/request-context.js';
import type { PredialDecision, PredialFacts } from '../kernel/call-decision.js';
import { dialerRepository, type AttemptToSettle, type ClaimedLead } from '../repositories/dialer.repository.js';
import { doNotCallRepository } from '../repositories/do-not-call.repository.js';
import type { CampaignService } from './campaign.service.js';
import { contactFields, type ContactService } from './contact.service.js';

// A campaign's lead, one attempt at a time (docs/dialer.md): claimed when due (still due, its campaign running, its
// number not on the do-not-call list at that moment), dialed once, and settled once by its call's end: answered, no
// answer, busy, voicemail (the provider's machine detection) or failed (a refused dial too). A settled attempt either
// ends its lead (an outcome not retried, or its attempts spent) or makes it wait for its retry (lead.called, either
// way). A campaign whose leads are all final completes. The engine (dialer-engine.ts) decides what to dial and when; this says what a dial
// does to the records, whoever calls it (the engine, a status callback, the recovery).

/** A call's status (and who answered it) as a dial's outcome; null while it goes on. */
export function outcomeOf(status: string, answeredBy: string | null): string | null {
  switch (status) {
    case 'completed':
      return answeredBy?.startsWith('machine') || answeredBy === 'fax' ? 'voicemail' : 'answered';
    case 'no-answer':
      return 'no_answer';
    case 'busy':
      return 'busy';
    case 'failed':
    case 'canceled':
      return 'failed';
    default:
      return null;
  }
}

export type Claim =
  | { kind: 'dial'; attemptId: number; campaignId: number; lead: ClaimedLead; from: string }
  | { kind: 'skipped'; reason: 'do_not_call' | 'no_number' }
  | { kind: 'gone' };

/** Asks a campaign's pre-dial endpoint (decisions/predial.ts, wired in the composition root). */
export type AskPredial = (ctx: RequestContext, facts: PredialFacts) => Promise<PredialDecision>;

/** A pre-dial decision as an attempt keeps it and the API shows it. */
export const decisionRecord = (d: PredialDecision) => ({
  decided_by: d.decidedBy,
  action: d.action,
  variables: d.variables,
  fallback_reason: d.fallbackReason,
  reason: d.reason,
  latency_ms: d.latencyMs === null ? null : Math.round(d.latencyMs * 1000) / 1000,
});

/** What the lead's agent is told: its variables as text, the pre-dial answer's over them. */
export function agentVariables(lead: ClaimedLead, decision: PredialDecision | null): Record<string, string> {
  const own = Object.fromEntries(Object.entries(lead.variables).map(([name, value]) => [name, String(value)]));
  return { ...own, ...decision?.variables };
}

export class DialerService {
  constructor(
    private readonly campaigns: CampaignService,
    private readonly contacts: ContactService,
    private readonly askPredial: AskPredial,
    /** The lease of an attempt between its claim and the provider's answer: a dialer silent past it has stopped. */
    private readonly leaseMs: number,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** In a unit of work of the lead's company: the lead's next attempt, when it is still due and may be called. */
  async claim(ctx: RequestContext, campaignId: number, leadId: number): Promise<Claim> {
    const now = this.clock();
    const lead = await dialerRepository.lockDue(ctx, leadId, now);
    if (!lead) return { kind: 'gone' };
    // The list as it is at the moment of dialing, not at upload.
    if ((await doNotCallRepository.listedOf(ctx, [lead.phoneNumber])).size > 0) {
      await dialerRepository.doNotCall(ctx, lead.id, now);
      await this.completeIfDone(ctx, campaignId);
      return { kind: 'skipped', reason: 'do_not_call' };
    }
    const from = lead.fromNumber ?? (await dialerRepository.dialerNumber(ctx));
    const attemptId = await dialerRepository.startAttempt(ctx, lead, campaignId, now, this.leaseMs);
    if (!from) {
      await this.settle(ctx, { id: attemptId }, 'failed', 'The company has no phone number to call from.');
      return { kind: 'skipped', reason: 'no_number' };
    }
    return { kind: 'dial', attemptId, campaignId, lead, from };
  }

  /**
   * The campaign's pre-dial endpoint asked about a claimed lead (outside any unit of work: it may take the endpoint's
   * deadline); null when the campaign asks none.
   */
  async predial(ctx: RequestContext, claim: Extract<Claim, { kind: 'dial' }>): Promise<PredialDecision | null> {
    const { lead } = claim;
    if (lead.predialEndpointId === null) return null;
    return this.askPredial(ctx, {
      companyId: await ctx.companyId(),
      endpointId: lead.predialEndpointId,
      fallback: lead.predialFallback,
      campaignId: claim.campaignId,
      leadId: lead.id,
      attempt: lead.attempts + 1,
      phoneNumber: lead.phoneNumber,
      from: claim.from,
      agentId: lead.agentId,
      contact: lead.contact,
      variables: agentVariables(lead, null),
    });
  }

  /** The pre-dial decision said skip: the attempt ends `skipped` with its reason, and the lead is final. */
  async skipped(ctx: RequestContext, attemptId: number, decision: PredialDecision): Promise<void> {
    await this.settle(ctx, { id: attemptId }, 'skipped', decision.reason, decision);
  }

  /** The provider placed the attempt's call: its id recorded; settled now when its end was reported first. */
  async dialed(ctx: RequestContext, attemptId: number, callSid: string, decision: PredialDecision | null = null) {
    await dialerRepository.holdCall(ctx, callSid);
    const kept = decision && decisionRecord(decision);
    if (!(await dialerRepository.recordCall(ctx, attemptId, callSid, kept, this.clock()))) return;
    const call = await dialerRepository.callOutcome(ctx, callSid);
    const outcome = call && outcomeOf(call.status, call.answeredBy);
    if (outcome) await this.settle(ctx, { id: attemptId }, outcome, null);
  }

  /** A stale attempt the provider never received: undone, its lead due again for the same attempt. */
  async undo(ctx: RequestContext, attemptId: number): Promise<void> {
    await dialerRepository.undoAttempt(ctx, attemptId, this.clock());
  }

  /** The provider refused the dial: the attempt failed, with the provider's words. */
  async refused(ctx: RequestContext, attemptId: number, error: string, decision: PredialDecision | null = null) {
    await this.settle(ctx, { id: attemptId }, 'failed', error, decision);
  }

  /** A status callback of an outbound call, in its unit of work: the end of a campaign's attempt, when it is one. */
  async callReported(ctx: RequestContext, callSid: string): Promise<void> {
    await dialerRepository.holdCall(ctx, callSid);
    const call = await dialerRepository.callOutcome(ctx, callSid);
    const outcome = call && outcomeOf(call.status, call.answeredBy);
    if (outcome) await this.settle(ctx, { callSid }, outcome, null);
  }

  /**
   * Ends an attempt once: its lead final, or waiting for its retry when the outcome is retried and attempts remain
   * (never more than the campaign's limit, whatever the mix of outcomes); a lead of a campaign that stopped meanwhile
   * is canceled rather than retried. Then the campaign completes when nothing is left to dial.
   */
  private async settle(
    ctx: RequestContext,
    by: { id: number } | { callSid: string },
    outcome: string,
    error: string | null,
    decision: PredialDecision | null = null,
  ): Promise<void> {
    const attempt = await dialerRepository.lockAttempt(ctx, by);
    if (!attempt || attempt.state === 'ended') return;
    const now = this.clock();
    const next = this.next(attempt, outcome, now);
    await dialerRepository.endAttempt(
      ctx,
      attempt,
      { outcome, error, decision: decision && decisionRecord(decision) },
      next,
      now,
    );
    const contact = await this.contacts.byId(ctx, attempt.contactId);
    await ctx.events.record(
      'lead.called',
      {
        lead_id: String(attempt.leadId),
        campaign_id: String(attempt.campaignId),
        call_id: attempt.callId === null ? null : String(attempt.callId),
        attempt: attempt.attempt,
        outcome,
        error,
        state: next.state,
        next_attempt_at: next.nextAttemptAt?.toISOString() ?? null,
      },
      contact ? contactFields(contact) : null,
    );
    await this.completeIfDone(ctx, attempt.campaignId);
  }

  private next(attempt: AttemptToSettle, outcome: string, now: Date): { state: string; nextAttemptAt: Date | null } {
    const retried = attempt.retryOn.includes(outcome) && attempt.attempt < attempt.maxAttempts;
    if (!retried) return { state: outcome, nextAttemptAt: null };
    if (attempt.campaignStatus === 'canceled') return { state: 'canceled', nextAttemptAt: null };
    const minutes = attempt.retryMinutes[Math.min(attempt.attempt, attempt.retryMinutes.length) - 1] ?? 0;
    return { state: 'waiting', nextAttemptAt: new Date(now.getTime() + minutes * 60_000) };
  }

  /** A scheduled campaign whose time has come starts (campaign.started, once). */
  startWhenDue(ctx: RequestContext, campaignId: number): Promise<void> {
    return this.campaigns.startWhenDue(ctx, campaignId);
  }

  /** campaign.completed, once, when a running campaign with leads has none left to dial or on a call. */
  async completeIfDone(ctx: RequestContext, campaignId: number): Promise<void> {
    if (await dialerRepository.hasOpenLeads(ctx, campaignId)) return;
    await this.campaigns.completeWhenRunning(ctx, campaignId);
  }
}
