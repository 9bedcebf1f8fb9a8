import { LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { Agent } from '../entities/agent.entity.js';
import { CallTurn } from '../entities/call-turn.entity.js';
import { Call } from '../entities/call.entity.js';
import type { CallDecisionRecord } from '../entities/call-decision.embeddable.js';
import { TERMINAL_CALL_STATUSES } from '../kernel/vocabulary.js';
import { CALL_PATH_CHANNEL } from '../db/config-cache.js';

// A company's calls as the provider's callbacks make and advance them, and their transcript turns: the one module
// that knows the calls and call_turns tables (the dashboard's lists and totals are in call-list.repository.ts).
// A callback locks its call (one at a time per call), changes the entity and the unit of work writes it.

/** A call the provider reports for the first time. */
export interface NewCall {
  agentId: number | null;
  contactId: number;
  providerCallId: string;
  fromNumber: string;
  toNumber: string;
  direction: string;
  contactName: string | null;
  contactEmail: string | null;
  at: Date;
}

const LOCKED = { lockMode: LockMode.PESSIMISTIC_WRITE } as const;

/** A new call's columns, its status aside. */
const newRow = async (ctx: RequestContext, call: NewCall) => ({
  company: await ctx.companyId(),
  agent: call.agentId,
  contact: call.contactId,
  providerCallId: call.providerCallId,
  fromNumber: call.fromNumber,
  toNumber: call.toNumber,
  startedAt: call.at,
  direction: call.direction,
  contactName: call.contactName,
  contactEmail: call.contactEmail,
  createdAt: call.at,
  updatedAt: call.at,
});

/** A new inbound call, `initiated`, with its decision; nothing when its provider id is known already. */
// Inbound calls with their decisions (the call path's record of a batch of calls), from a JSON array.
const INSERT_MANY_DECIDED = `INSERT INTO calls (company_id, agent_id, contact_id, provider_call_id, from_number,
    to_number, started_at, direction, contact_name, contact_email, created_at, updated_at, status, decided_by,
    decision_action, decision_target, decision_reason, decision_variables, decision_latency_ms, decision_fallback_reason)
  SELECT $1, c.agent_id, c.contact_id, c.sid, c.from_number, c.to_number, c.at, c.direction, c.contact_name,
    c.contact_email, c.at, c.at, 'initiated', c.decided_by, c.action, c.target, c.reason, c.variables, c.latency_ms,
    c.fallback_reason
  FROM json_to_recordset($2::json) AS c(agent_id int, contact_id int, sid text, from_number text, to_number text,
    at timestamptz, direction text, contact_name text, contact_email text, decided_by text, action text, target text,
    reason text, variables jsonb, latency_ms int, fallback_reason text)
  ON CONFLICT (provider_call_id) DO NOTHING RETURNING provider_call_id AS sid, id, started_at`;

export const callRepository = {
  /**
   * Records a call the provider reports for the first time (status `new`); false when one with its provider id is
   * known already. Two callbacks at once: one inserts, the other finds it (the unique provider id decides).
   */
  async insertIfNew(ctx: RequestContext, call: NewCall): Promise<boolean> {
    const result = await ctx.em
      .createQueryBuilder(Call)
      .insert({ ...(await newRow(ctx, call)), status: 'new' })
      .onConflict('providerCallId')
      .ignore()
      .execute('run');
    return result.affectedRows > 0;
  },

  /**
   * Records inbound calls with their decisions, `initiated`, in one statement: the id and start of each that was new,
   * by provider id (one known already is left out; the unique provider id decides).
   */
  async insertManyDecided(
    ctx: RequestContext,
    calls: Array<{ call: NewCall; decision: { decidedBy: string } & CallDecisionRecord }>,
  ): Promise<Map<string, { id: number; startedAt: Date }>> {
    const rows = await ctx.sql<{ sid: string; id: number; started_at: Date }>(INSERT_MANY_DECIDED, [
      await ctx.companyId(),
      JSON.stringify(
        calls.map(({ call, decision }) => ({
          agent_id: call.agentId,
          contact_id: call.contactId,
          sid: call.providerCallId,
          from_number: call.fromNumber,
          to_number: call.toNumber,
          at: call.at,
          direction: call.direction,
          contact_name: call.contactName,
          contact_email: call.contactEmail,
          decided_by: decision.decidedBy,
          action: decision.action,
          target: decision.target,
          reason: decision.reason,
          variables: decision.variables ?? null,
          latency_ms: decision.latencyMs,
          fallback_reason: decision.fallbackReason,
        })),
      ),
    ]);
    return new Map(rows.map((row) => [row.sid, { id: row.id, startedAt: row.started_at }]));
  },

  /** The company's call with this provider id, locked until the unit of work ends; null for another's or none. */
  async lockedByProviderId(ctx: RequestContext, providerCallId: string): Promise<Call | null> {
    return ctx.em.findOne(Call, { providerCallId, company: await ctx.companyId() }, LOCKED);
  },

  /** The company's call by id, locked until the unit of work ends; null for another's or none. */
  async lockedById(ctx: RequestContext, id: number): Promise<Call | null> {
    return ctx.em.findOne(Call, { id, company: await ctx.companyId() }, LOCKED);
  },

  /** The company's call with this provider id (a transcript turn's, a tool call's), or null. */
  async byProviderId(ctx: RequestContext, providerCallId: string): Promise<Call | null> {
    return ctx.em.findOne(Call, { providerCallId, company: await ctx.companyId() });
  },

  /**
   * Tells every API process, once the unit of work has committed, that these calls are decided
   * (db/recent-decisions.ts): one notification naming them all (at most 200, within a payload's 8,000 bytes).
   */
  announceDecided(ctx: RequestContext, providerCallIds: string[]): void {
    ctx.notifyAfterCommit(CALL_PATH_CHANNEL, `d${providerCallIds.join(',')}`);
  },

  /** Whether the company has the call `id`. */
  async owned(ctx: RequestContext, id: number): Promise<boolean> {
    return (await ctx.em.count(Call, { id, company: await ctx.companyId() })) > 0;
  },

  /** The company's calls in progress (the provider has not said they ended), newest first, with their agents. */
  async inProgress(ctx: RequestContext, limit: number): Promise<Call[]> {
    return ctx.em.find(
      Call,
      { company: await ctx.companyId(), status: { $in: ['initiated', 'ringing', 'in-progress'] } },
      { populate: ['agent'], orderBy: { startedAt: 'desc', id: 'desc' }, limit },
    );
  },

  /** Calls by id with their companies and agents, whoever's they are (the dashboard checks who may see each). */
  async withCompanies(ctx: RequestContext, ids: number[]): Promise<Call[]> {
    return ctx.em.find(Call, { id: { $in: ids } }, { populate: ['company', 'agent'] });
  },

  /** An agent's latest ended calls (at most `window`), newest first: their status, length and sentiment. */
  async latestEnded(
    ctx: RequestContext,
    agentId: number,
    window: number,
  ): Promise<Array<Pick<Call, 'status' | 'durationSeconds' | 'sentiment'>>> {
    return ctx.em.find(
      Call,
      { agent: agentId, company: await ctx.companyId(), status: { $in: [...TERMINAL_CALL_STATUSES] } },
      { fields: ['status', 'durationSeconds', 'sentiment'], orderBy: { startedAt: 'desc', id: 'desc' }, limit: window },
    );
  },

  /** An agent of the company as a call's agent, by the id a decision gave (one of the company's, checked by it). */
  agentRef(ctx: RequestContext, id: number | null): Agent | null {
    return id === null ? null : ctx.em.getReference(Agent, id);
  },

  /** Keeps a transcript turn; false when the call has that turn already. */
  /** Adds turns (of calls already found) in one statement; each kept once. Returns the ones added, as `call:sequence`. */
  async addTurns(
    ctx: RequestContext,
    turns: Array<Pick<CallTurn, 'sequence' | 'speaker' | 'text'> & { callId: number }>,
    createdAt: Date,
  ): Promise<Set<string>> {
    // Plain text, no query builder: a tool call's turn is written on the event loop of the next calls' answers.
    const rows = await ctx.sql<{ call_id: number; sequence: number }>(
      `INSERT INTO call_turns (call_id, sequence, speaker, text, created_at)
       SELECT t.call_id, t.sequence, t.speaker, t.text, $5 FROM unnest($1::int[], $2::int[], $3::text[], $4::text[])
         AS t(call_id, sequence, speaker, text)
       ON CONFLICT (call_id, sequence) DO NOTHING RETURNING call_id, sequence`,
      [
        turns.map((t) => t.callId),
        turns.map((t) => t.sequence),
        turns.map((t) => t.speaker),
        turns.map((t) => t.text),
        createdAt,
      ],
    );
    return new Set(rows.map((row) => `${row.call_id}:${row.sequence}`));
  },

  /** A call's transcript turns, in order. */
  turns(ctx: RequestContext, callId: number): Promise<CallTurn[]> {
    return ctx.em.find(CallTurn, { call: callId }, { orderBy: { sequence: 'asc' } });
  },

  /** Writes what was changed on the calls this unit of work holds. */
  save(ctx: RequestContext): Promise<void> {
    return ctx.em.flush();
  },
};
