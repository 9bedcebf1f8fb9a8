import type { RequestContext } from '../context/request-context.js';
import { type PageWindow, readDeepPage } from '../db/reads.js';
import { Call } from '../entities/call.entity.js';
import type { Company } from '../entities/company.entity.js';
import type { Interval } from '../kernel/time/date-range.js';
import { type Listed, listed } from './common.js';

// The reads of calls kept as one statement each (docs/architecture.md, "Hand-written parts"): the AI dashboard's
// appointment list (a deep page through the index of booked calls) and its totals (an aggregate, which has no entity
// form), and the facts an inbound call's decision is asked about (the company, the number, the contact and the
// decision already made, on the caller's path). Everything else about calls is call.repository.ts's.

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

/** What the statement computes beside a listed call's columns: wall clocks in the company's zone, as PostgreSQL formats them. */
interface AppointmentExtras {
  agentName: string | null;
  callDatetime: string;
  appointment: string;
  recordingAvailable: boolean;
}
const EXTRAS: Array<keyof AppointmentExtras> = ['agentName', 'callDatetime', 'appointment', 'recordingAvailable'];

/** A row of the appointment list. */
export type AppointmentRow = Listed<
  Call,
  | 'id'
  | 'startedAt'
  | 'appointmentAt'
  | 'fromNumber'
  | 'toNumber'
  | 'durationSeconds'
  | 'status'
  | 'direction'
  | 'sentiment'
> &
  AppointmentExtras;

const APPOINTMENT_ROW = `c.id, c.started_at, c.appointment_at, a.name AS "agentName",
  to_char(c.started_at AT TIME ZONE co.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS "callDatetime",
  to_char(c.appointment_at AT TIME ZONE co.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS appointment, c.from_number, c.to_number,
  c.duration_seconds, c.status, c.direction, c.sentiment, c.recording_url IS NOT NULL AS "recordingAvailable"`;
const APPOINTMENT_JOINS = 'JOIN companies co ON co.id = c.company_id LEFT JOIN agents a ON a.id = c.agent_id';

/** What an inbound call's decision is asked about of the called number, kept in memory (db/config-cache.ts). */
export interface NumberFacts {
  companyName: Company['name'];
  numberId: number | null;
  numberAgentId: number | null;
  /** The company's agents (an answer may name only these). */
  agents: ReadonlySet<number>;
}

export const callReads = {
  /**
   * Calls in the scope that booked an appointment, newest first. A deep page is found through the index on
   * (company, start, id) of booked calls (a deferred join), so page 5,000 costs about what page 1 does.
   */
  async appointmentPage(ctx: RequestContext, scope: CallScope, window: PageWindow) {
    const { where, params, agents } = scopeFilter(scope);
    const { rows, total, nextCursor } = await readDeepPage<Record<string, unknown>>(
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
    return { rows: appointmentRows(ctx, rows), total, nextCursor };
  },

  /** One call of the company as a row of the appointment list (a booking answers with it). */
  async appointmentRow(ctx: RequestContext, id: number): Promise<AppointmentRow | undefined> {
    const rows = await ctx.sql<Record<string, unknown>>(
      `SELECT ${APPOINTMENT_ROW} FROM calls c ${APPOINTMENT_JOINS} WHERE c.id = $1 AND c.company_id = $2`,
      [id, await ctx.companyId()],
    );
    return appointmentRows(ctx, rows)[0];
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

  /** The facts of the context's company and its number `to` for an inbound call; undefined when it has gone. */
  async numberFacts(ctx: RequestContext, to: string): Promise<NumberFacts | undefined> {
    const [row] = await ctx.sql<Omit<NumberFacts, 'agents'> & { agents: number[] }>(
      `SELECT co.name AS "companyName", pn.id AS "numberId", pn.chatbot_agent_id AS "numberAgentId",
         ARRAY(SELECT a.id FROM agents a WHERE a.company_id = co.id) AS agents
       FROM companies co LEFT JOIN phone_numbers pn ON pn.company_id = co.id AND pn.phone_no = $2
       WHERE co.id = $1`,
      [await ctx.companyId(), to],
    );
    return row && { ...row, agents: new Set(row.agents) };
  },

  /** The context's company's call with this provider sid, as a tool call needs it: its id and agent. */
  async toolCallFacts(ctx: RequestContext, sid: string): Promise<{ id: number; agentId: number | null } | undefined> {
    const [row] = await ctx.sql<{ id: number; agentId: number | null }>(
      'SELECT id, agent_id AS "agentId" FROM calls WHERE provider_call_id = $1 AND company_id = $2',
      [sid, await ctx.companyId()],
    );
    return row;
  },

  /**
   * The calls of every company decided since `since`, read from the newest `limit` calls back (the primary key's
   * order, so the read stops there whatever the table holds), and from when that covers every call: `since`, or
   * the oldest call read when the limit cut the rest off.
   */
  async recentlyDecided(
    ctx: RequestContext,
    since: Date,
    limit: number,
  ): Promise<{ calls: Array<{ sid: string; at: number }>; coveredFrom: number }> {
    const [row] = await ctx.sql<{ scanned: number; oldest: Date | null; calls: Array<[string, number]> }>(
      `WITH recent AS MATERIALIZED (SELECT provider_call_id, started_at, decided_by FROM calls ORDER BY id DESC LIMIT $2)
       SELECT (SELECT count(*) FROM recent)::int AS scanned, (SELECT min(started_at) FROM recent) AS oldest,
         coalesce((SELECT json_agg(json_build_array(provider_call_id, (extract(epoch FROM started_at) * 1000)::bigint))
           FROM recent WHERE decided_by IS NOT NULL AND provider_call_id IS NOT NULL AND started_at >= $1), '[]') AS calls`,
      [since, limit],
    );
    const cut = row.scanned >= limit && row.oldest !== null;
    return {
      calls: row.calls.map(([sid, at]) => ({ sid, at: Number(at) })),
      coveredFrom: cut ? Math.max(since.getTime(), row.oldest!.getTime()) : since.getTime(),
    };
  },
};

const appointmentRows = (ctx: RequestContext, rows: Array<Record<string, unknown>>): AppointmentRow[] =>
  listed<Call, Exclude<keyof AppointmentRow, keyof AppointmentExtras> & keyof Call, AppointmentExtras>(
    ctx,
    Call,
    rows,
    EXTRAS,
  );

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
