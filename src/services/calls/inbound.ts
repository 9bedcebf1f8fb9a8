import type { RequestContext } from '../../context/request-context.js';
import { dbDate } from '../../db/reads.js';
import type { CallDecision, InboundCallFacts } from '../../kernel/call-decision.js';

// The calls aggregate's statements for an inbound call the provider asks
// Switchboard to route: the facts a decision is asked about (one statement),
// and the decision written onto the call.

interface FactsRow extends DecisionColumns {
  company_name: string;
  number_id: number | null;
  number_agent: number | null;
  contact_id: number | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  agents: number[];
}

/** A decision as the call row keeps it. */
export interface DecisionColumns {
  decided_by: CallDecision['decidedBy'] | null;
  decision_action: CallDecision['action'] | null;
  decision_target: string | null;
  decision_fallback_reason: CallDecision['fallbackReason'];
  decision_reason: string | null;
  decision_variables: Record<string, string> | null;
  decision_latency_ms: number | null;
  agent_id: number | null;
}

/** The decision a call row keeps, or null when none was made for it. */
export const decisionOf = (row: DecisionColumns): CallDecision | null =>
  row.decided_by === null || row.decision_action === null
    ? null
    : {
        decidedBy: row.decided_by,
        action: row.decision_action,
        agentId: row.decision_action === 'answer' ? row.agent_id : null,
        forwardTo: row.decision_action === 'forward' ? row.decision_target : null,
        fallbackReason: row.decision_fallback_reason,
        reason: row.decision_reason,
        variables: row.decision_variables ?? {},
        latencyMs: row.decision_latency_ms,
      };

export const inboundCalls = {
  /** The company's call with this provider id, and its agent (whose tools a tool call runs). */
  async forTool(
    ctx: RequestContext,
    companyId: number,
    callSid: string,
  ): Promise<{ id: number; agentId: number | null } | undefined> {
    const [row] = await ctx.sql<{ id: number; agent_id: number | null }>(
      'SELECT id, agent_id FROM calls WHERE provider_call_id = $1 AND company_id = $2',
      [callSid, companyId],
    );
    return row && { id: row.id, agentId: row.agent_id };
  },

  /** The call's facts, and the decision already made for it when the provider asks again. */
  async facts(
    ctx: RequestContext,
    companyId: number,
    call: { callSid: string; from: string; to: string },
  ): Promise<{ facts: InboundCallFacts; decided: CallDecision | null } | undefined> {
    const [row] = await ctx.sql<FactsRow>(
      `SELECT co.name AS company_name, pn.id AS number_id, pn.chatbot_agent_id AS number_agent,
         ct.id AS contact_id, ct.first_name, ct.last_name, ct.email,
         ARRAY(SELECT a.id FROM agents a WHERE a.company_id = co.id) AS agents,
         cl.decided_by, cl.decision_action, cl.decision_target, cl.decision_reason, cl.decision_fallback_reason, cl.decision_variables,
         cl.decision_latency_ms, cl.agent_id
       FROM companies co
       LEFT JOIN phone_numbers pn ON pn.company_id = co.id AND pn.phone_no = $2
       LEFT JOIN contacts ct ON ct.company_id = co.id AND ct.phone_number = $3
       LEFT JOIN calls cl ON cl.provider_call_id = $4 AND cl.company_id = co.id
       WHERE co.id = $1`,
      [companyId, call.to, call.from, call.callSid],
    );
    if (!row) return undefined;
    return {
      facts: {
        companyId,
        companyName: row.company_name,
        callSid: call.callSid,
        caller: call.from,
        called: call.to,
        phoneNumberId: row.number_id,
        numberAgentId: row.number_agent,
        contact:
          row.contact_id === null
            ? null
            : { id: row.contact_id, firstName: row.first_name, lastName: row.last_name, email: row.email },
        agents: new Set(row.agents),
      },
      decided: decisionOf(row),
    };
  },

  /**
   * Writes the decision onto the call, unless one is written already. A call
   * still `new` (made by insertIfNew in this unit of work) starts now
   * (initiated); one a status callback already started keeps its status.
   */
  async decide(
    ctx: RequestContext,
    companyId: number,
    providerCallId: string,
    decision: CallDecision,
    at: Date,
  ): Promise<{ id: number; startedAt: Date; startsNow: boolean } | undefined> {
    const [row] = await ctx.sql<{ id: number; started_at: string; was: string }>(
      `WITH old AS (SELECT id, status FROM calls
         WHERE provider_call_id = $1 AND company_id = $10 AND decided_by IS NULL FOR UPDATE)
       UPDATE calls c SET status = CASE WHEN old.status = 'new' THEN 'initiated' ELSE c.status END, agent_id = $2,
         decided_by = $3, decision_action = $4, decision_target = $5, decision_reason = $6, decision_variables = $7,
         decision_latency_ms = $8, updated_at = $9, decision_fallback_reason = $11
       FROM old WHERE c.id = old.id RETURNING c.id, c.started_at, old.status AS was`,
      [
        providerCallId,
        decision.agentId,
        decision.decidedBy,
        decision.action,
        decision.action === 'forward'
          ? decision.forwardTo
          : decision.agentId === null
            ? null
            : String(decision.agentId),
        decision.reason,
        JSON.stringify(decision.variables),
        decision.latencyMs,
        at,
        companyId,
        decision.fallbackReason,
      ],
    );
    return row && { id: row.id, startedAt: dbDate(row.started_at), startsNow: row.was === 'new' };
  },
};
