import type { RequestContext } from '../../context/request-context.js';
import type { CallDecision } from '../../kernel/call-decision.js';
import type { Logger } from '../../observability/logger.js';
import { callRepository } from '../../repositories/call.repository.js';
import type { InboundCallArrived } from '../../telco/callbacks.js';
import { contactFields, type ContactService } from '../contact.service.js';
import { applyDecision, decidedColumns } from './records.js';
import type { QuietMoments } from './quiet-moments.js';
import { CompanyBatches } from './company-batches.js';

// The record of inbound calls' decisions (docs/adr/0096-decisions-recorded-together.md): each decision is recorded
// after the provider has its answer, off the caller's path, at the call path's next quiet moment (quiet-moments.ts, at
// most every 50 ms and within 100 ms), together with the others of its company answered meanwhile. One unit of work for
// them all: their contacts found or made in one statement, the new calls inserted with their decisions in another, and
// call.started for each in the outbox's one statement, written with the COMMIT; after it, one notification tells the
// API processes they are decided (db/recent-decisions.ts). Each record costs the event loop that the next calls'
// answers run on a fraction of what a unit of work of its own would, and the database a fraction of the round trips. A
// batch that fails is recorded again call by call, so one call's failure is its own.

interface Answered {
  ctx: RequestContext;
  call: InboundCallArrived;
  decision: CallDecision;
  /** When it was answered: the call's start. */
  at: Date;
}

export class DecisionRecords {
  /** Decisions answered and not recorded yet, by call sid: a repeat of the call is answered from here. */
  private readonly unrecorded = new Map<string, CallDecision>();
  /** Answered and not yet written, by company (company-batches.ts). */
  private readonly batches: CompanyBatches<Answered>;

  constructor(
    private readonly contacts: ContactService,
    quiet: QuietMoments,
    private readonly log: Logger,
    private readonly clock: () => Date,
  ) {
    this.batches = new CompanyBatches(quiet, {
      write: (batch) => this.write(batch),
      failed: ({ call }, error) =>
        this.log.error('an inbound call was answered but its decision not recorded', {
          callSid: call.callSid,
          error: error.message,
        }),
      done: (batch) => {
        for (const { call } of batch) this.unrecorded.delete(call.callSid);
      },
    });
  }

  /** Records the call with its decision soon, with the others of its company answered meanwhile. */
  add(ctx: RequestContext, companyId: number, call: InboundCallArrived, decision: CallDecision): void {
    if (!this.unrecorded.has(call.callSid)) this.unrecorded.set(call.callSid, decision);
    this.batches.add(companyId, { ctx, call, decision, at: this.clock() });
  }

  /** The decision answered for a call and not recorded yet. */
  answered(callSid: string): CallDecision | undefined {
    return this.unrecorded.get(callSid);
  }

  /** Resolves once every decision answered so far is recorded (at shutdown, after HTTP has drained). */
  settled(): Promise<void> {
    return this.batches.settled();
  }

  /**
   * The calls with their decisions, and call.started carrying each, in one unit of work. A call a status callback
   * started first (call.started without the decision) has the decision written onto it; a call answered twice (the
   * provider asked twice at once) keeps its first.
   */
  private async write(batch: Answered[]): Promise<void> {
    const seen = new Set<string>();
    const calls = batch.filter(({ call }) => !seen.has(call.callSid) && seen.add(call.callSid));
    await batch[0].ctx.unitOfWork(async (uow) => {
      const people = await this.contacts.peopleOf(
        uow,
        calls.map(({ call }) => call.from),
      );
      const inserted = await callRepository.insertManyDecided(
        uow,
        calls.map(({ call, decision, at }) => {
          const person = people.get(call.from)!;
          return {
            call: {
              agentId: decision.agentId,
              contactId: person.id,
              providerCallId: call.callSid,
              fromNumber: call.from,
              toNumber: call.to,
              direction: 'inbound',
              contactName: [person.firstName, person.lastName].filter(Boolean).join(' ') || null,
              contactEmail: person.email,
              at,
            },
            decision: decidedColumns(decision),
          };
        }),
      );
      callRepository.announceDecided(
        uow,
        calls.map(({ call }) => call.callSid),
      );
      const started: Array<{ data: Record<string, unknown>; contact: Record<string, unknown> }> = [];
      for (const one of calls) {
        const start = inserted.get(one.call.callSid) ?? (await this.known(uow, one));
        const person = people.get(one.call.from)!;
        if (start) started.push({ data: startedData(one, start), contact: contactFields(person) });
      }
      if (started.length > 0) await uow.events.recordMany('call.started', started);
    });
  }

  /**
   * A call known already: unless a decision is written (the provider asked twice at once), it takes this one. Its
   * start when call.started is sent now; a call a status callback started keeps its status and its call.started.
   */
  private async known(uow: RequestContext, { call, decision }: Answered) {
    const recorded = await callRepository.lockedByProviderId(uow, call.callSid);
    if (!recorded || recorded.decidedBy) return undefined;
    const startsNow = recorded.status === 'new';
    applyDecision(recorded, decision, callRepository.agentRef(uow, decision.agentId));
    await callRepository.save(uow);
    return startsNow ? { id: recorded.id, startedAt: recorded.startedAt } : undefined;
  }
}

/** call.started's data: the call and its decision. */
function startedData({ call, decision }: Answered, start: { id: number; startedAt: Date }): Record<string, unknown> {
  const agentId = decision.agentId === null ? null : String(decision.agentId);
  return {
    call_id: String(start.id),
    agent_id: agentId,
    caller_number: call.from,
    called_number: call.to,
    call_direction: 'inbound',
    started_at: start.startedAt.toISOString(),
    decision: {
      decided_by: decision.decidedBy,
      action: decision.action,
      agent_id: agentId,
      forward_to: decision.forwardTo,
      fallback_reason: decision.fallbackReason,
      reason: decision.reason,
      latency_ms: decision.latencyMs,
    },
  };
}
