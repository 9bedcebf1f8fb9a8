import type { RequestContext } from '../context/request-context.js';
import type { CallDecision, DecidingEndpoint, InboundCallFacts } from '../kernel/call-decision.js';
import { NotFoundError } from '../kernel/errors.js';
import type { Logger } from '../observability/logger.js';
import type { InboundCallArrived } from '../telco/callbacks.js';
import type { ContactService } from './contact.service.js';
import { DecisionRecords } from './calls/decision-records.js';
import type { QuietMoments } from './calls/quiet-moments.js';
import { callReads } from '../repositories/call-reads.repository.js';
import { contactRepository } from '../repositories/contact.repository.js';
import type { ConfigCache } from '../db/config-cache.js';
import type { ContactDirectory } from '../db/contact-directory.js';
import type { RecentDecisions } from '../db/recent-decisions.js';
import { callRepository } from '../repositories/call.repository.js';
import { decisionOf } from './calls/records.js';

// An inbound call the provider asks Switchboard to route
// (docs/adr/0068-decisions-in-the-call-path.md): the call's facts and the
// endpoint that decides it are found side by side, from memory
// (docs/adr/0095-call-facts-in-memory.md), the endpoint is asked (or its
// fallback decides, or without one the number's own agent answers), and the
// provider gets its instruction at once. The call is recorded with its
// decision after, off the caller's path, with the others answered meanwhile
// (calls/decision-records.ts; call.started carries it): nothing is held open
// while the endpoint is asked, and no commit is waited for before the caller
// hears anything.

/** The company's decision module, wired in the composition root. */
export interface DecisionPorts {
  /** The endpoint that decides a call to `called`; undefined without one. */
  endpointFor(ctx: RequestContext, companyId: number, called: string): Promise<DecidingEndpoint | undefined>;
  decide(endpoint: DecidingEndpoint, call: InboundCallFacts, startedAt: number): Promise<CallDecision>;
}

/** What an inbound call's decision reads, kept in memory and current within a notification's latency (db/). */
export interface CallPathMemory {
  /** The called number's facts, with the call path's configuration. */
  config: ConfigCache;
  contacts: ContactDirectory;
  decided: RecentDecisions;
}

export class InboundCallService {
  private readonly records: DecisionRecords;

  constructor(
    contacts: ContactService,
    private readonly decisions: DecisionPorts,
    private readonly memory: CallPathMemory,
    private readonly quiet: QuietMoments,
    log: Logger,
    clock: () => Date = () => new Date(),
  ) {
    this.records = new DecisionRecords(contacts, quiet, log, clock);
  }

  /** The call's decision (the one already made, when the provider asks again). `startedAt`: performance.now() at arrival. */
  inboundCall(ctx: RequestContext, call: InboundCallArrived, startedAt: number): Promise<CallDecision> {
    return this.quiet.during(() => this.decided(ctx, call, startedAt));
  }

  /** Resolves once every decision already answered is recorded (at shutdown, after HTTP has drained). */
  async settled(): Promise<void> {
    await this.records.settled();
  }

  private async decided(ctx: RequestContext, call: InboundCallArrived, startedAt: number): Promise<CallDecision> {
    const companyId = await ctx.companyId();
    const [number, contact, endpoint] = await Promise.all([
      this.memory.config.get(`number:${companyId}:${call.to}`, async () => {
        const facts = await callReads.numberFacts(ctx, call.to);
        return facts && { companyId, value: facts };
      }),
      this.memory.contacts.find(companyId, call.from, {
        one: () => contactRepository.caller(ctx, call.from),
        page: (afterId, limit) => contactRepository.callers(ctx, afterId, limit),
      }),
      this.decisions.endpointFor(ctx, companyId, call.to),
    ]);
    if (!number) throw new NotFoundError('Company');
    // The provider asks again: the decision already made, answered here and not recorded yet, or recorded (the
    // database is asked only when the calls decided lately cannot tell).
    const answered = this.records.answered(call.callSid);
    if (answered) return answered;
    if (this.memory.decided.decided(call.callSid) !== false) {
      const made = await callRepository.byProviderId(ctx, call.callSid);
      const decided = made && decisionOf(made);
      if (decided) return decided;
    }
    const facts: InboundCallFacts = {
      companyId,
      companyName: number.companyName,
      callSid: call.callSid,
      caller: call.from,
      called: call.to,
      phoneNumberId: number.numberId,
      numberAgentId: number.numberAgentId,
      contact,
      agents: number.agents,
    };
    const decision: CallDecision = endpoint
      ? await this.decisions.decide(endpoint, facts, startedAt)
      : {
          decidedBy: 'number',
          action: 'answer',
          agentId: number.numberAgentId,
          forwardTo: null,
          fallbackReason: null,
          reason: null,
          variables: {},
          latencyMs: null,
        };
    this.memory.decided.add(call.callSid);
    this.records.add(ctx, companyId, call, decision);
    return decision;
  }
}
