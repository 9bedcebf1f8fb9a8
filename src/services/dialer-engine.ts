import type { ContextFactory, RequestContext } from '../context/request-context.js';
import type { CallStatusChanged } from '../telco/callback-commands.js';
import type { Leadership } from '../db/leadership.js';
import { ProviderUnavailableError, UnprocessableError } from '../kernel/errors.js';
import { nextOpening } from '../kernel/time/calling-hours.js';
import { errorFields, type Logger } from '../observability/logger.js';
import { dialerRepository, type RunningCampaign } from '../repositories/dialer.repository.js';
import { agentVariables, type DialerService, outcomeOf } from './dialer.service.js';
import type { TelcoService } from './telco.service.js';

// The dialer (docs/dialer.md): one process of the deployment leads it (db/leadership.ts); every few hundred
// milliseconds it reads the running campaigns and their free places (each campaign's concurrency, under its
// company's), takes each one's due leads (retries first), leaves for later those outside their calling hours, and
// dials the rest at its provider account's pace (calls per second, never more, as the provider counts them). A dial
// is claimed in a unit of work (the attempt made under a lease) before the provider is asked, so a crash between the
// two is found by the recovery, which asks the provider whether the call was placed: the attempt adopts it, or is
// undone and its lead dialed again as the same attempt. A call's end comes back by its status callback
// (dialer.service.ts).

export interface DialerSettings {
  /** Calls per second per provider account. */
  callsPerSecond: number;
  /** Calls at once per company, over all its campaigns. */
  companyConcurrency: number;
  /** How often the leader plans. */
  tickMs: number;
  /** A claim's lease; also how long a call on the line goes unheard of before the provider is asked about it. */
  leaseMs: number;
}

/** How far ahead of its turn a dial is planned: no dial waits in memory for longer than this. */
const PLAN_AHEAD_MS = 1000;

export class DialerEngine {
  /** Where the provider sends a call's progress: this service's address (set once it listens). */
  callbackBase = '';
  private timer?: NodeJS.Timeout;
  private ticking = false;
  private stopped = true;
  /** Per company (its provider account): its dials' sending, one after another; when the last was answered. */
  private readonly sending = new Map<number, Promise<void>>();
  private readonly answered = new Map<number, number>();
  /** Per company: the last turn planned (planning looks a second ahead at most). */
  private readonly planned = new Map<number, number>();
  /** Dials planned and not yet claimed, per campaign, and their leads (not planned twice while they wait). */
  private readonly pending = new Map<number, number>();
  private readonly plannedLeads = new Set<number>();
  /** Each campaign's company, for the company's share of the planned dials. */
  private readonly companyOf = new Map<number, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private lastRecovery = 0;

  constructor(
    private readonly contexts: ContextFactory,
    private readonly dialer: DialerService,
    private readonly telco: TelcoService,
    private readonly leadership: Leadership,
    private readonly settings: DialerSettings,
    private readonly log: Logger,
    /** Applies a call's status as its callback does (the composition root's). */
    private readonly reportCallStatus: (ctx: RequestContext, report: CallStatusChanged) => Promise<void>,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Plans at once (a retry's timer fired, a campaign started). */
  wake(): void {
    if (!this.stopped) this.schedule(0);
  }

  /** Stops planning; dials under way finish; the leadership goes. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.inFlight]);
    await this.leadership.release();
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    try {
      const led = this.leadership.held;
      if (await this.leadership.tryAcquire()) {
        if (!led) this.log.info('dialer leading', { pid: process.pid });
        await this.plan();
        if (Date.now() - this.lastRecovery > 5000) {
          this.lastRecovery = Date.now();
          await this.recover();
        }
      }
    } catch (error) {
      this.log.warn('dialer planning failed', errorFields(error));
    } finally {
      this.ticking = false;
      if (!this.stopped) this.schedule(this.leadership.held ? this.settings.tickMs : 2000);
    }
  }

  private async plan(): Promise<void> {
    const ctx = this.contexts.forMaintenance('dialer plan');
    for (const due of await dialerRepository.dueScheduled(ctx, new Date()))
      await this.contexts
        .forSystem(due.companyId, 'dialer scheduled start')
        .unitOfWork((uow) => this.dialer.startWhenDue(uow, due.id));
    // The dials planned and not yet claimed, as they are before the places are read: a claim that commits in between
    // is then counted twice (a place left free until the next turn), never not at all (a place given twice).
    const pendingBefore = new Map(this.pending);
    const campaigns = await dialerRepository.runningCampaigns(ctx);
    const companyLive = await dialerRepository.liveByCompany(ctx);
    /** Dials this turn plans, per campaign. */
    const plannedNow = new Map<number, number>();
    const unclaimed = (campaignId: number) => (pendingBefore.get(campaignId) ?? 0) + (plannedNow.get(campaignId) ?? 0);
    const now = new Date();
    for (const campaign of campaigns) {
      if (!campaign.open && campaign.live === 0) {
        // Leads, and none left to dial or on a call: it completes (every lead listed, say). A campaign with no lead
        // yet waits for its leads.
        if (!campaign.hasLeads) continue;
        await this.contexts
          .forSystem(campaign.companyId, 'dialer complete')
          .unitOfWork((uow) => this.dialer.completeIfDone(uow, campaign.id));
        continue;
      }
      const waiting = unclaimed(campaign.id);
      let companyBusy = companyLive.get(campaign.companyId) ?? 0;
      for (const [other, company] of this.companyOf)
        if (company === campaign.companyId) companyBusy += unclaimed(other);
      const free = Math.min(
        campaign.concurrency - campaign.live - waiting,
        this.settings.companyConcurrency - companyBusy,
      );
      if (free <= 0) continue;
      const leads = await dialerRepository.dueLeads(ctx, campaign.id, now, free * 2 + waiting);
      let planned = 0;
      for (const lead of leads) {
        if (planned >= free) break;
        if (this.plannedLeads.has(lead.id)) continue;
        const zones = lead.timeZones.length > 0 ? lead.timeZones : [campaign.companyTimeZone];
        const hours = { start: campaign.hoursStart, end: campaign.hoursEnd, days: campaign.callingDays };
        const opens = nextOpening(now, zones, hours);
        if (opens === null) {
          await dialerRepository.outsideHours(ctx, lead.id, now);
          continue;
        }
        if (opens > now) {
          await dialerRepository.defer(ctx, lead.id, opens);
          continue;
        }
        const turn = this.turn(campaign.companyId, now.getTime());
        if (turn === undefined) break;
        planned++;
        plannedNow.set(campaign.id, (plannedNow.get(campaign.id) ?? 0) + 1);
        this.dial(campaign, lead.id, turn);
      }
    }
  }

  /** The next turn of the company's account (ms since the epoch), when it comes soon enough to plan now. */
  private turn(companyId: number, now: number): number | undefined {
    const gap = 1000 / this.settings.callsPerSecond;
    const at = Math.max(now, (this.planned.get(companyId) ?? 0) + gap);
    if (at > now + PLAN_AHEAD_MS) return undefined;
    this.planned.set(companyId, at);
    return at;
  }

  private dial(campaign: RunningCampaign, leadId: number, turn: number): void {
    this.pending.set(campaign.id, (this.pending.get(campaign.id) ?? 0) + 1);
    this.plannedLeads.add(leadId);
    this.companyOf.set(campaign.id, campaign.companyId);
    const task = this.dialOne(campaign, leadId, turn).finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  private async dialOne(campaign: RunningCampaign, leadId: number, turn: number): Promise<void> {
    const ctx = this.contexts.forSystem(campaign.companyId, 'dialer');
    let claimed = false;
    try {
      await sleepUntil(turn);
      const claim = await ctx.unitOfWork((uow) => this.dialer.claim(uow, campaign.id, leadId));
      this.pending.set(campaign.id, (this.pending.get(campaign.id) ?? 1) - 1);
      this.plannedLeads.delete(leadId);
      claimed = true;
      if (claim.kind !== 'dial') return;
      // Asked before its turn at the account's pace: an endpoint's deadline holds up no other dial.
      const decision = await this.dialer.predial(ctx, claim);
      if (decision?.action === 'skip') {
        await ctx.unitOfWork((uow) => this.dialer.skipped(uow, claim.attemptId, decision));
        return;
      }
      try {
        const place = await this.telco.dialer(ctx);
        const { sid } = await this.paced(campaign.companyId, () =>
          place({
            from: claim.from,
            to: claim.lead.phoneNumber,
            statusCallback: `${this.callbackBase}/api/telco/voice/status`,
            ringSeconds: claim.lead.ringSeconds,
            agentId: claim.lead.agentId,
            variables: agentVariables(claim.lead, decision),
          }),
        );
        await ctx.unitOfWork((uow) => this.dialer.dialed(uow, claim.attemptId, sid, decision));
      } catch (error) {
        if (error instanceof UnprocessableError)
          await ctx.unitOfWork((uow) => this.dialer.refused(uow, claim.attemptId, error.message, decision));
        // Not answered, or answered and not recorded: the recovery asks the provider once the lease is out.
        else this.log.warn('dial outcome unknown', { attemptId: claim.attemptId, ...errorFields(error) });
      }
    } catch (error) {
      this.log.warn('dial failed', { leadId, ...errorFields(error) });
    } finally {
      if (!claimed) {
        this.pending.set(campaign.id, (this.pending.get(campaign.id) ?? 1) - 1);
        this.plannedLeads.delete(leadId);
      }
    }
  }

  /**
   * Sends a dial at the company's account's pace: one after another, each at least the account's gap after the
   * provider answered the one before. The provider has received a request before it answers it, so two never reach it
   * closer than the gap, whatever either request's delay on its way.
   */
  private paced<T>(companyId: number, send: () => Promise<T>): Promise<T> {
    const gap = 1000 / this.settings.callsPerSecond;
    const sent = (this.sending.get(companyId) ?? Promise.resolve()).then(async () => {
      await sleepUntil((this.answered.get(companyId) ?? 0) + gap);
      try {
        return await send();
      } finally {
        this.answered.set(companyId, Date.now());
      }
    });
    this.sending.set(
      companyId,
      sent.then(
        () => undefined,
        () => undefined,
      ),
    );
    return sent;
  }

  /**
   * Attempts still dialing past their lease: their dialer stopped between the claim and recording the call. The
   * provider says whether it placed the call: if it did, the attempt takes it (and its end, if reported); if not,
   * the attempt is undone and its lead is due again, to be dialed as the same attempt.
   */
  private async recover(): Promise<void> {
    const now = new Date();
    const stale = await dialerRepository.stale(this.contexts.forMaintenance('dialer recovery'), now);
    for (const attempt of stale) {
      const ctx = this.contexts.forSystem(attempt.companyId, 'dialer recovery');
      try {
        const calls = await this.telco.callsTo(ctx, attempt.phoneNumber, new Date(attempt.dialedAt.getTime() - 5000));
        if (calls.length > 0) await ctx.unitOfWork((uow) => this.dialer.dialed(uow, attempt.id, calls[0].sid));
        else await ctx.unitOfWork((uow) => this.dialer.undo(uow, attempt.id));
        this.log.warn('dial recovered', { attemptId: attempt.id, placed: calls.length > 0 });
      } catch (error) {
        if (!(error instanceof ProviderUnavailableError))
          this.log.warn('dial recovery failed', { attemptId: attempt.id, ...errorFields(error) });
      }
    }
    // Calls on the line and not heard of for a lease: the provider says whether they ended (their end callbacks lost
    // while the service or its database was away); an end is applied as its callback would have been.
    const quiet = await dialerRepository.quietLive(
      this.contexts.forMaintenance('dialer recovery'),
      new Date(now.getTime() - this.settings.leaseMs),
      now,
    );
    for (const attempt of quiet) {
      const ctx = this.contexts.forSystem(attempt.companyId, 'dialer recovery');
      try {
        const report = await this.telco.callReport(ctx, attempt.callSid);
        if (outcomeOf(report.status, null) === null) continue; // still on the line: asked again a lease later
        await ctx.unitOfWork((uow) => this.reportCallStatus(uow, report));
        this.log.warn('call end recovered', { attemptId: attempt.id, status: report.status });
      } catch (error) {
        if (!(error instanceof ProviderUnavailableError))
          this.log.warn('call end recovery failed', { attemptId: attempt.id, ...errorFields(error) });
      }
    }
  }
}

const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
