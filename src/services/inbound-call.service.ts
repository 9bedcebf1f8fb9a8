import type { RequestContext } from '../context/request-context.js';
import type { CallDecision, InboundCallFacts } from '../kernel/call-decision.js';
import { NotFoundError } from '../kernel/errors.js';
import type { InboundCallArrived } from '../telco/callbacks.js';
import { contactFields, type ContactService } from './contact.service.js';
import { callRecords } from './calls/statements.js';
import { inboundCalls } from './calls/inbound.js';

// An inbound call the provider asks Switchboard to route
// (docs/adr/0068-decisions-in-the-call-path.md): the call's facts are read,
// the company's decision endpoint is asked (or its fallback decides, or
// without one the number's own agent answers), and only then, in one unit of
// work, the call is recorded with its decision and call.started carries it.
// Nothing is held open while the endpoint is asked.

/** Asks the company's decision endpoint; undefined when the company has none for the number. */
export type Decide = (
  ctx: RequestContext,
  call: InboundCallFacts,
  startedAt: number,
) => Promise<CallDecision | undefined>;

export class InboundCallService {
  constructor(
    private readonly contacts: ContactService,
    private readonly decide: Decide,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The call's decision (the one already made, when the provider asks again). `startedAt`: performance.now() at arrival. */
  async inboundCall(ctx: RequestContext, call: InboundCallArrived, startedAt: number): Promise<CallDecision> {
    const companyId = await ctx.companyId();
    const known = await inboundCalls.facts(ctx, companyId, call);
    if (!known) throw new NotFoundError('Company');
    if (known.decided) return known.decided;
    const { facts } = known;
    const decision = (await this.decide(ctx, facts, startedAt)) ?? {
      decidedBy: 'number',
      action: 'answer',
      agentId: facts.numberAgentId,
      forwardTo: null,
      reason: null,
      variables: {},
      latencyMs: null,
    };
    return ctx.unitOfWork(async (uow) => {
      const now = this.clock();
      const person = await this.contacts.findOrCreate(uow, call.from);
      await callRecords.insertIfNew(uow, {
        companyId,
        agentId: decision.agentId,
        contactId: person.id,
        providerCallId: call.callSid,
        fromNumber: call.from,
        toNumber: call.to,
        direction: 'inbound',
        contactName: [person.firstName, person.lastName].filter(Boolean).join(' ') || null,
        contactEmail: person.email,
        at: now,
      });
      const started = await inboundCalls.decide(uow, companyId, call.callSid, decision, now);
      if (!started) {
        // Another callback got there first (a repeat decided, or the call already under way): its decision stands.
        const again = await inboundCalls.facts(uow, companyId, call);
        return again?.decided ?? decision;
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
            reason: decision.reason,
            latency_ms: decision.latencyMs,
          },
        },
        contactFields(person),
      );
      return decision;
    });
  }
}
