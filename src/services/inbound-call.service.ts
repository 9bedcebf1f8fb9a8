import type { RequestContext } from '../context/request-context.js';
import type { CallDecision, DecidingEndpoint, InboundCallFacts } from '../kernel/call-decision.js';
import { NotFoundError } from '../kernel/errors.js';
import type { Logger } from '../observability/logger.js';
import type { InboundCallArrived } from '../telco/callbacks.js';
import { contactFields, type ContactService } from './contact.service.js';
import { callReads } from '../repositories/call-reads.repository.js';
import { contactRepository } from '../repositories/contact.repository.js';
import type { ConfigCache } from '../db/config-cache.js';
import type { ContactDirectory } from '../db/contact-directory.js';
import type { RecentDecisions } from '../db/recent-decisions.js';
import { callRepository } from '../repositories/call.repository.js';
import { applyDecision, decidedColumns, decisionOf } from './calls/records.js';

// An inbound call the provider asks Switchboard to route
// (docs/adr/0068-decisions-in-the-call-path.md): the call's facts and the
// endpoint that decides it are found side by side, from memory
// (docs/adr/0095-call-facts-in-memory.md), the endpoint is asked (or its
// fallback decides, or without one the number's own agent answers), and the
// provider gets its instruction at once. The call is recorded with its
// decision right after, in one unit of work (call.started carries it), off
// the caller's path: nothing is held open while the endpoint is asked, and
// no commit is waited for before the caller hears anything.

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
  /** Decisions answered and not yet recorded. */
  private readonly recording = new Set<Promise<void>>();

  constructor(
    private readonly contacts: ContactService,
    private readonly decisions: DecisionPorts,
    private readonly memory: CallPathMemory,
    private readonly log: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The call's decision (the one already recorded, when the provider asks again). `startedAt`: performance.now() at arrival. */
  async inboundCall(ctx: RequestContext, call: InboundCallArrived, startedAt: number): Promise<CallDecision> {
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
    // The provider asks again: the decision already made (the database is asked only when memory cannot tell).
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
    const recorded = this.record(ctx, call, decision).catch((error: Error) =>
      this.log.error('an inbound call was answered but its decision not recorded', {
        callSid: call.callSid,
        error: error.message,
      }),
    );
    this.recording.add(recorded);
    void recorded.finally(() => this.recording.delete(recorded));
    return decision;
  }

  /** Resolves once every decision already answered is recorded (at shutdown, after HTTP has drained). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.recording]);
  }

  /**
   * The call with its decision, and call.started carrying it, in one unit of
   * work. A status callback that got there first has started the call
   * (call.started without the decision); the decision is written onto it.
   */
  private async record(ctx: RequestContext, call: InboundCallArrived, decision: CallDecision) {
    await ctx.unitOfWork(async (uow) => {
      const now = this.clock();
      const person = await this.contacts.personOf(uow, call.from);
      const fields = {
        agentId: decision.agentId,
        contactId: person.id,
        providerCallId: call.callSid,
        fromNumber: call.from,
        toNumber: call.to,
        direction: 'inbound',
        contactName: [person.firstName, person.lastName].filter(Boolean).join(' ') || null,
        contactEmail: person.email,
        at: now,
      };
      // The other API processes hear of the decision at the commit (db/recent-decisions.ts).
      await callRepository.announceDecided(uow, call.callSid);
      // The usual case, one statement: the call is new, and starts now with its decision.
      let started = await callRepository.insertDecided(uow, fields, decidedColumns(decision));
      if (!started) {
        // Known already. Unless a decision is written (the provider asked twice at once), it takes this one; a call a
        // status callback started keeps its status and its call.started.
        const recorded = await callRepository.lockedByProviderId(uow, call.callSid);
        if (!recorded || recorded.decidedBy) return;
        const startsNow = recorded.status === 'new';
        applyDecision(recorded, decision, callRepository.agentRef(uow, decision.agentId));
        await callRepository.save(uow);
        if (!startsNow) return;
        started = { id: recorded.id, startedAt: recorded.startedAt };
      }
      await uow.events.record(
        'call.started',
        {
          call_id: String(started.id),
          agent_id: decision.agentId === null ? null : String(decision.agentId),
          caller_number: call.from,
          called_number: call.to,
          call_direction: 'inbound',
          started_at: started.startedAt.toISOString(),
          decision: {
            decided_by: decision.decidedBy,
            action: decision.action,
            agent_id: decision.agentId === null ? null : String(decision.agentId),
            forward_to: decision.forwardTo,
            fallback_reason: decision.fallbackReason,
            reason: decision.reason,
            latency_ms: decision.latencyMs,
          },
        },
        contactFields(person),
      );
    });
  }
}
