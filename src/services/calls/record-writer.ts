import type { RequestContext } from '../../context/request-context.js';
import { callRepository } from '../../repositories/call.repository.js';
import type { CallTranscriptService, CallTurnWritten } from '../call-transcript.service.js';
import { contactFields, type ContactService } from '../contact.service.js';
import type { DecisionRecord, RecordWriter } from './call-records.js';
import { applyDecision, decidedColumns } from './records.js';

// How the call path's records are written, a batch of one company's at a time (call-records.ts hands them over).
// Inbound calls' decisions (docs/adr/0096-decisions-recorded-together.md): one unit of work for the batch, their
// contacts found or made in one statement, the new calls inserted with their decisions in another, and call.started
// for each in the outbox's one statement, written with the COMMIT; after it, one notification tells the API processes
// they are decided (db/recent-decisions.ts). Tool calls' turns: one statement (call-transcript.service.ts). Writing a
// record twice changes nothing: a call recorded already keeps its first decision, a turn kept already is not kept
// again.

export class CallRecordWriter implements RecordWriter {
  constructor(
    private readonly contacts: ContactService,
    private readonly transcripts: CallTranscriptService,
  ) {}

  /**
   * The calls with their decisions, and call.started carrying each, in one unit of work. A call a status callback
   * started first (call.started without the decision) has the decision written onto it; a call answered twice (the
   * provider asked twice at once) keeps its first.
   */
  async decisions(ctx: RequestContext, batch: DecisionRecord[]): Promise<void> {
    const seen = new Set<string>();
    const calls = batch.filter(({ call }) => !seen.has(call.callSid) && seen.add(call.callSid));
    await ctx.unitOfWork(async (uow) => {
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

  /** Tool calls' turns of one company's calls, in one statement, each announced once. */
  turns(ctx: RequestContext, turns: CallTurnWritten[]): Promise<void> {
    return this.transcripts.turnsOf(ctx, turns);
  }

  /**
   * A call known already: unless a decision is written (the provider asked twice at once), it takes this one. Its
   * start when call.started is sent now; a call a status callback started keeps its status and its call.started.
   */
  private async known(uow: RequestContext, { call, decision }: DecisionRecord) {
    const recorded = await callRepository.lockedByProviderId(uow, call.callSid);
    if (!recorded || recorded.decidedBy) return undefined;
    const startsNow = recorded.status === 'new';
    applyDecision(recorded, decision, callRepository.agentRef(uow, decision.agentId));
    await callRepository.save(uow);
    return startsNow ? { id: recorded.id, startedAt: recorded.startedAt } : undefined;
  }
}

/** call.started's data: the call and its decision. */
function startedData(
  { call, decision }: DecisionRecord,
  start: { id: number; startedAt: Date },
): Record<string, unknown> {
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
