import { decisionOf, type DecisionColumns } from './inbound.js';
import type { RequestContext } from '../../context/request-context.js';
import { dbDate, readDeepPage, type PageWindow } from '../../db/reads.js';
import type { Interval } from '../../kernel/time/date-range.js';
import type { TranscriptTurn } from '../live-events.js';
import {
  analysedCall,
  appointmentCallRecord,
  callState,
  type AnalysedCall,
  type AnalysedCallRow,
  type AppointmentCallRecord,
  type AppointmentCallRow,
  type CallAnalysis,
  type CallDetailsRow,
  type CallState,
  type CallStateRow,
} from './records.js';

// The calls aggregate's statements: every read and write of the calls table.
// The provider's callbacks create and advance a call (the call service), a
// booking moves its appointment (the campaign service), the agent figures
// read an agent's latest calls, and the AI dashboard reads the appointment
// list, its totals and one call's details.

export interface NewCall {
  companyId: number;
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

/** Which calls of a company the dashboard reads: a range of start times, an agent, a search. */
export interface CallScope {
  companyId: number;
  interval: Interval;
  agentId?: number;
  /** An ILIKE pattern over the numbers, the agent's name, the contact's name and the disposition. */
  pattern?: string;
}

export interface CallTotals {
  calls: number;
  answered: number;
  appointments: number;
  average: number;
  positive: number;
  neutral: number;
  negative: number;
}

/** A row of the appointment list; the wall clock in the company's zone, as PostgreSQL formats it. */
const APPOINTMENT_ROW = `c.id, c.started_at, c.appointment_at, a.name AS agent_name,
  to_char(c.started_at AT TIME ZONE co.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS call_datetime,
  to_char(c.appointment_at AT TIME ZONE co.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS appointment, c.from_number, c.to_number,
  c.duration_seconds, c.status, c.direction, c.sentiment, c.recording_url IS NOT NULL AS recording_available`;
const APPOINTMENT_JOINS = 'JOIN companies co ON co.id = c.company_id LEFT JOIN agents a ON a.id = c.agent_id';

export const callRecords = {
  /** Records a call the provider reports for the first time; false when it is known already. */
  async insertIfNew(ctx: RequestContext, c: NewCall): Promise<boolean> {
    const inserted = await ctx.sql<{ id: number }>(
      `INSERT INTO calls (company_id, agent_id, contact_id, provider_call_id, from_number, to_number, started_at,
        duration_seconds, status, direction, tags, custom_fields, contact_name, contact_email, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 0, 'new', $8, '[]', '{}', $9, $10, $11, $12) ON CONFLICT (provider_call_id) DO NOTHING RETURNING id`,
      [
        c.companyId,
        c.agentId,
        c.contactId,
        c.providerCallId,
        c.fromNumber,
        c.toNumber,
        c.at,
        c.direction,
        c.contactName,
        c.contactEmail,
        c.at,
        c.at,
      ],
    );
    return inserted.length > 0;
  },

  /** The company's call with this provider id, locked: one callback at a time per call. */
  async lockByProviderId(
    ctx: RequestContext,
    companyId: number,
    providerCallId: string,
  ): Promise<CallState | undefined> {
    const [row] = await ctx.sql<CallStateRow>(
      `SELECT id, status, agent_id, from_number, to_number, direction, duration_seconds, started_at, answered_at,
        transferred_to, recording_url, transcript, sentiment, disposition, tags, custom_fields, appointment_at
       FROM calls WHERE provider_call_id = $1 AND company_id = $2 FOR UPDATE`,
      [providerCallId, companyId],
    );
    return row && callState(row);
  },

  /** Writes a callback's changes; `ended` sets the end time, a new appointment replaces the old one. */
  async saveProgress(
    ctx: RequestContext,
    call: CallState,
    changes: { ended: boolean; appointmentAt: Date | null; at: Date },
  ): Promise<void> {
    await ctx.sql(
      `UPDATE calls SET status = $1, duration_seconds = $2, answered_at = $3, ended_at = CASE WHEN $4 THEN $5 ELSE ended_at END, transferred_to = $6,
         recording_url = $7, transcript = $8, sentiment = $9, disposition = $10, tags = $11, appointment_at = COALESCE($12, appointment_at), updated_at = $13
       WHERE id = $14`,
      [
        call.status,
        call.durationSeconds,
        call.answeredAt,
        changes.ended,
        changes.at,
        call.transferredTo,
        call.recordingUrl,
        call.transcript,
        call.sentiment,
        call.disposition,
        JSON.stringify(call.tags),
        changes.appointmentAt,
        changes.at,
        call.id,
      ],
    );
  },

  /** A call of the company (by id, or by the provider's id), locked for an analysis. */
  async lockForAnalysis(
    ctx: RequestContext,
    companyId: number,
    by: { id: number } | { providerCallId: string },
  ): Promise<AnalysedCall | undefined> {
    const [row] = await ctx.sql<AnalysedCallRow>(
      `SELECT id, status, agent_id, from_number, to_number, direction, contact_id, summary, sentiment, disposition,
        successful, custom_analysis, recording_url, analyzed_at
       FROM calls WHERE ${'id' in by ? 'id' : 'provider_call_id'} = $1 AND company_id = $2 FOR UPDATE`,
      ['id' in by ? by.id : by.providerCallId, companyId],
    );
    return row && analysedCall(row);
  },

  async saveAnalysis(ctx: RequestContext, id: number, a: CallAnalysis, at: Date): Promise<void> {
    await ctx.sql(
      'UPDATE calls SET summary = $1, sentiment = $2, disposition = $3, successful = $4, custom_analysis = $5, ' +
        'recording_url = $6, analyzed_at = $7, updated_at = $8 WHERE id = $9',
      [
        a.summary,
        a.sentiment,
        a.disposition,
        a.successful,
        JSON.stringify(a.customAnalysis),
        a.recordingUrl,
        at,
        at,
        id,
      ],
    );
  },

  /** The id of the company's call with this provider id. */
  async idByProviderId(ctx: RequestContext, companyId: number, providerCallId: string): Promise<number | undefined> {
    const [row] = await ctx.sql<{ id: number }>(
      'SELECT id FROM calls WHERE provider_call_id = $1 AND company_id = $2',
      [providerCallId, companyId],
    );
    return row?.id;
  },

  /** The id, when the call is the company's. */
  async idOfCompany(ctx: RequestContext, companyId: number, id: number): Promise<number | undefined> {
    const [row] = await ctx.sql<{ id: number }>('SELECT id FROM calls WHERE id = $1 AND company_id = $2', [
      id,
      companyId,
    ]);
    return row?.id;
  },

  /** The company's calls in progress (the provider has not said they ended), newest first. */
  async inProgress(ctx: RequestContext, companyId: number, limit: number) {
    const rows = await ctx.sql<
      DecisionColumns & {
        id: number;
        status: string;
        direction: string;
        from_number: string;
        to_number: string;
        started_at: Date | string;
        agent_name: string | null;
      }
    >(
      `SELECT c.id, c.status, c.direction, c.from_number, c.to_number, c.started_at, a.name AS agent_name, c.agent_id,
         c.decided_by, c.decision_action, c.decision_target, c.decision_reason, c.decision_fallback_reason, c.decision_variables, c.decision_latency_ms
       FROM calls c LEFT JOIN agents a ON a.id = c.agent_id
       WHERE c.company_id = $1 AND c.status IN ('initiated', 'ringing', 'in-progress') ORDER BY c.started_at DESC, c.id DESC LIMIT $2`,
      [companyId, limit],
    );
    return rows.map((r) => ({
      id: r.id,
      status: r.status,
      direction: r.direction,
      fromNumber: r.from_number,
      toNumber: r.to_number,
      startedAt: dbDate(r.started_at),
      agentName: r.agent_name,
      decision: decisionOf(r),
    }));
  },

  /** Keeps a transcript turn; false when the call has that turn already. */
  async addTurn(ctx: RequestContext, turn: TranscriptTurn): Promise<boolean> {
    const rows = await ctx.sql(
      'INSERT INTO call_turns (call_id, sequence, speaker, text, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING 1',
      [turn.callId, turn.sequence, turn.speaker, turn.text, turn.at],
    );
    return rows.length > 0;
  },

  async turns(ctx: RequestContext, callId: number): Promise<TranscriptTurn[]> {
    const rows = await ctx.sql<{ sequence: number; speaker: string; text: string; created_at: Date | string }>(
      'SELECT sequence, speaker, text, created_at FROM call_turns WHERE call_id = $1 ORDER BY sequence',
      [callId],
    );
    return rows.map((r) => ({
      callId,
      sequence: r.sequence,
      speaker: r.speaker,
      text: r.text,
      at: dbDate(r.created_at),
    }));
  },

  /** A call of the company, locked for a booking. */
  async lockForBooking(ctx: RequestContext, companyId: number, id: number) {
    const [row] = await ctx.sql<{
      id: number;
      agent_id: number | null;
      appointment_at: Date | string | null;
      contact_id: number | null;
      from_number: string;
      to_number: string;
      direction: string;
    }>(
      'SELECT id, agent_id, appointment_at, contact_id, from_number, to_number, direction FROM calls WHERE id = $1 AND company_id = $2 FOR UPDATE',
      [id, companyId],
    );
    return (
      row && {
        id: row.id,
        agentId: row.agent_id,
        appointmentAt: dbDate(row.appointment_at),
        contactId: row.contact_id,
        fromNumber: row.from_number,
        toNumber: row.to_number,
        direction: row.direction,
      }
    );
  },

  async setAppointment(ctx: RequestContext, id: number, appointmentAt: Date, at: Date): Promise<void> {
    await ctx.sql('UPDATE calls SET appointment_at = $1, updated_at = $2 WHERE id = $3', [appointmentAt, at, id]);
  },

  /** An agent's latest ended calls (at most `window`): how many, how many answered, the average sentiment (positive 1, neutral 0, negative -1). */
  async agentFigures(
    ctx: RequestContext,
    companyId: number,
    agentId: number,
    endedStatuses: readonly string[],
    window: number,
  ) {
    const [figures] = await ctx.sql<{ calls: number; answered: number; sentiment: number | null }>(
      `SELECT count(*)::int AS calls,
              count(*) FILTER (WHERE status = 'completed' AND duration_seconds > 0)::int AS answered,
              avg(CASE sentiment WHEN 'positive' THEN 1 WHEN 'neutral' THEN 0 WHEN 'negative' THEN -1 END)::float AS sentiment
       FROM (SELECT status, duration_seconds, sentiment FROM calls WHERE agent_id = $1 AND company_id = $2 AND
         status = ANY($3) ORDER BY started_at DESC, id DESC LIMIT $4) recent`,
      [agentId, companyId, endedStatuses, window],
    );
    return figures;
  },

  /**
   * Calls in the scope that booked an appointment, newest first, read as
   * plain rows. A deep page is found through the index on (company, start,
   * id) of booked calls (a deferred join), so page 5,000 costs about what
   * page 1 does.
   */
  async appointmentPage(ctx: RequestContext, scope: CallScope, window: PageWindow) {
    const { where, params, agents } = scopeFilter(scope);
    const { rows, total, nextCursor } = await readDeepPage<AppointmentCallRow>(
      ctx,
      {
        select: APPOINTMENT_ROW,
        table: 'calls c',
        key: 'c.id',
        joins: APPOINTMENT_JOINS,
        orderBy: 'c.started_at DESC, c.id DESC',
        sort: 'c.started_at',
        keys: {
          key: 'k.id',
          sort: 'k.started_at',
          from: agents,
          where: `k.appointment_at IS NOT NULL AND ${where}`,
          orderBy: 'k.started_at DESC, k.id DESC',
        },
        params,
      },
      window,
    );
    return { records: rows.map(appointmentCallRecord), total, nextCursor };
  },

  /** One call of the company as a row of the appointment list (a booking answers with it). */
  async appointmentCall(
    ctx: RequestContext,
    companyId: number,
    id: number,
  ): Promise<AppointmentCallRecord | undefined> {
    const [row] = await ctx.sql<AppointmentCallRow>(
      `SELECT ${APPOINTMENT_ROW} FROM calls c ${APPOINTMENT_JOINS} WHERE c.id = $1 AND c.company_id = $2`,
      [id, companyId],
    );
    return row && appointmentCallRecord(row);
  },

  /** The totals of every call in the scope, in one aggregate query over the same filters as the list. */
  async totals(ctx: RequestContext, scope: CallScope): Promise<CallTotals> {
    const { where, params, agents } = scopeFilter(scope);
    const [totals] = await ctx.sql<CallTotals>(
      `SELECT count(*)::int AS calls,
         count(*) FILTER (WHERE k.status = 'completed' AND k.duration_seconds > 0)::int AS answered,
         count(k.appointment_at)::int AS appointments, coalesce(round(avg(k.duration_seconds)), 0)::int AS average,
         count(*) FILTER (WHERE k.sentiment = 'positive')::int AS positive,
         count(*) FILTER (WHERE k.sentiment = 'neutral')::int AS neutral,
         count(*) FILTER (WHERE k.sentiment = 'negative')::int AS negative
       FROM ${agents} WHERE ${where}`,
      params,
    );
    return totals;
  },

  /** Calls by id with their company's zone and family and their agent's name (the dashboard checks who may see each). */
  details(ctx: RequestContext, ids: number[]): Promise<CallDetailsRow[]> {
    return ctx.sql<CallDetailsRow>(
      `SELECT c.id, c.company_id, co.parent_id AS company_parent_id, co.time_zone, c.agent_id, a.name AS agent_name,
         c.from_number, c.to_number, c.started_at, c.duration_seconds, c.status, c.direction, c.sentiment,
         c.recording_url, c.transcript, c.disposition, c.tags, c.custom_fields, c.appointment_at, c.contact_name,
         c.contact_email, c.summary, c.successful, c.custom_analysis, c.analyzed_at, c.decided_by, c.decision_action,
         c.decision_target, c.decision_reason, c.decision_fallback_reason, c.decision_variables, c.decision_latency_ms
       FROM calls c JOIN companies co ON co.id = c.company_id LEFT JOIN agents a ON a.id = c.agent_id
       WHERE c.id = ANY($1::int[])`,
      [ids],
    );
  },
};

/**
 * The calls of a scope as a filter over `calls k` (and, for a search, its
 * agent `ka`): the list's keys and the totals read the same rows.
 */
function scopeFilter(scope: CallScope): { where: string; params: unknown[]; agents: string } {
  const params: unknown[] = [scope.companyId, scope.interval.start, scope.interval.end];
  let where = 'k.company_id = $1 AND k.started_at >= $2 AND k.started_at < $3';
  if (scope.agentId !== undefined) where += ` AND k.agent_id = $${params.push(scope.agentId)}`;
  if (scope.pattern !== undefined) {
    const p = `$${params.push(scope.pattern)}`;
    where += ` AND (k.from_number ILIKE ${p} OR k.to_number ILIKE ${p} OR ka.name ILIKE ${p} OR k.contact_name ILIKE ${p} OR k.disposition ILIKE ${p})`;
  }
  const agents = scope.pattern === undefined ? 'calls k' : 'calls k LEFT JOIN agents ka ON ka.id = k.agent_id';
  return { where, params, agents };
}
