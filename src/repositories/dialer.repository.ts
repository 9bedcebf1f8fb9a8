import type { RequestContext } from '../context/request-context.js';
import { LOCKS } from '../db/locks.js';
import { OPEN_LEAD_STATES } from '../kernel/vocabulary.js';

// The dialer's statements (services/dialer.service.ts, services/dialer-engine.ts): the running campaigns and their
// free places, a campaign's leads due now, a lead claimed for an attempt, the attempt's call id and its end, and the
// campaign's progress. Tables: campaigns, leads, lead_attempts (entities/lead-attempt.entity.ts), calls.

/** A running campaign as the engine plans it. */
export interface RunningCampaign {
  id: number;
  companyId: number;
  /** The company's zone: the calling hours of a lead with no zone of its own. */
  companyTimeZone: string;
  concurrency: number;
  hoursStart: number;
  hoursEnd: number;
  callingDays: number[];
  /** Its attempts dialing or on a call now. */
  live: number;
  /** Whether it has a lead that is not final. */
  open: boolean;
  /** Whether it has any lead. */
  hasLeads: boolean;
}

/** A lead due to be dialed. */
export interface DueLead {
  id: number;
  timeZones: string[];
}

/** A lead claimed for its next attempt, with what the dial needs. */
export interface ClaimedLead {
  id: number;
  attempts: number;
  phoneNumber: string;
  fromNumber: string | null;
  ringSeconds: number;
  /** The campaign's agent, and what the lead's variables tell it. */
  agentId: number | null;
  variables: Record<string, unknown>;
  /** The campaign's pre-dial endpoint (none: not asked) and its fallback. */
  predialEndpointId: number | null;
  predialFallback: 'dial' | 'skip';
  contact: { id: number; firstName: string | null; lastName: string | null; email: string | null };
}

/** An attempt and its lead's campaign's retry rules, locked for its end. */
export interface AttemptToSettle {
  id: number;
  state: string;
  /** Our call's id, when the provider placed it and its callbacks made the record. */
  callId: number | null;
  contactId: number;
  leadId: number;
  campaignId: number;
  attempt: number;
  campaignStatus: string;
  maxAttempts: number;
  retryMinutes: number[];
  retryOn: string[];
}

/** The lead states that are not final, as a statement's list. */
const OPEN = `(${OPEN_LEAD_STATES.map((state) => `'${state}'`).join(', ')})`;

export const dialerRepository = {
  /** Every company's running campaigns, the longest running first (read across companies). */
  runningCampaigns(ctx: RequestContext): Promise<RunningCampaign[]> {
    return ctx.sql<RunningCampaign>(
      `SELECT c.id, c.company_id AS "companyId", co.time_zone AS "companyTimeZone", c.concurrency,
         c.hours_start AS "hoursStart", c.hours_end AS "hoursEnd", c.calling_days AS "callingDays",
         (SELECT count(*)::int FROM lead_attempts a WHERE a.campaign_id = c.id AND a.state IN ('dialing', 'live'))
           AS live,
         EXISTS (SELECT 1 FROM leads l WHERE l.campaign_id = c.id AND l.state IN ${OPEN}) AS open,
         EXISTS (SELECT 1 FROM leads l WHERE l.campaign_id = c.id) AS "hasLeads"
       FROM campaigns c JOIN companies co ON co.id = c.company_id
       WHERE c.status = 'running' ORDER BY c.started_at, c.id`,
      [],
    );
  },

  /** Scheduled campaigns whose start has come (read across companies). */
  dueScheduled(ctx: RequestContext, now: Date): Promise<Array<{ id: number; companyId: number }>> {
    return ctx.sql<{ id: number; companyId: number }>(
      `SELECT id, company_id AS "companyId" FROM campaigns WHERE status = 'scheduled' AND starts_at <= $1
       ORDER BY starts_at, id LIMIT 100`,
      [now],
    );
  },

  /** Attempts dialing or on a call now, by company (read across companies). */
  async liveByCompany(ctx: RequestContext): Promise<Map<number, number>> {
    const rows = await ctx.sql<{ company_id: number; live: number }>(
      `SELECT company_id, count(*)::int AS live FROM lead_attempts WHERE state IN ('dialing', 'live')
       GROUP BY company_id`,
      [],
    );
    return new Map(rows.map((r) => [r.company_id, r.live]));
  },

  /** Up to `limit` of the campaign's leads due at `now`: retries first, by when they fell due, then new ones. */
  async dueLeads(ctx: RequestContext, campaignId: number, now: Date, limit: number): Promise<DueLead[]> {
    const rows: DueLead[] = [];
    for (const state of ['waiting', 'pending']) {
      if (rows.length >= limit) break;
      rows.push(
        ...(await ctx.sql<DueLead>(
          `SELECT id, time_zones AS "timeZones" FROM leads
           WHERE campaign_id = $1 AND state = $2 AND next_attempt_at <= $3 ORDER BY next_attempt_at, id LIMIT $4`,
          [campaignId, state, now, limit - rows.length],
        )),
      );
    }
    return rows;
  },

  /** A lead not due before `at` (its calling hours open then). */
  async defer(ctx: RequestContext, leadId: number, at: Date): Promise<void> {
    await ctx.sql(`UPDATE leads SET next_attempt_at = $2 WHERE id = $1 AND state IN ('pending', 'waiting')`, [
      leadId,
      at,
    ]);
  },

  /** A lead whose zones' calling hours never open together: final. */
  async outsideHours(ctx: RequestContext, leadId: number, now: Date): Promise<void> {
    await ctx.sql(
      `UPDATE leads SET state = 'outside_hours', next_attempt_at = NULL, updated_at = $2
       WHERE id = $1 AND state IN ('pending', 'waiting')`,
      [leadId, now],
    );
  },

  /**
   * The lead, locked for this unit of work, when it is still due and its campaign still running; null when another
   * dialer holds it, it has been dialed or its campaign has stopped. The campaign is held (shared) until the claim
   * commits: a pause or a cancel waits for a claim under way, and no claim follows it.
   */
  async lockDue(ctx: RequestContext, leadId: number, now: Date): Promise<ClaimedLead | null> {
    const [row] = await ctx.sql<ClaimedLead>(
      `SELECT l.id, l.attempts, ct.phone_number AS "phoneNumber", c.from_number AS "fromNumber",
         c.ring_seconds AS "ringSeconds", c.agent_id AS "agentId", l.variables,
         c.predial_endpoint_id AS "predialEndpointId", c.predial_fallback AS "predialFallback",
         json_build_object('id', ct.id, 'firstName', ct.first_name, 'lastName', ct.last_name, 'email', ct.email)
           AS contact
       FROM leads l JOIN campaigns c ON c.id = l.campaign_id JOIN contacts ct ON ct.id = l.contact_id
       WHERE l.id = $1 AND l.company_id = $2 AND l.state IN ('pending', 'waiting') AND l.next_attempt_at <= $3
         AND c.status = 'running'
       FOR UPDATE OF l SKIP LOCKED FOR SHARE OF c`,
      [leadId, await ctx.companyId(), now],
    );
    return row ?? null;
  },

  /** The locked lead's next attempt, made `dialing` under a lease; its id. */
  async startAttempt(ctx: RequestContext, lead: ClaimedLead, campaignId: number, now: Date, leaseMs: number) {
    await ctx.sql(`UPDATE leads SET state = 'dialing', attempts = attempts + 1, updated_at = $2 WHERE id = $1`, [
      lead.id,
      now,
    ]);
    const [attempt] = await ctx.sql<{ id: number }>(
      `INSERT INTO lead_attempts (company_id, lead_id, campaign_id, attempt, state, dialed_at, lease_until, created_at,
         updated_at)
       VALUES ($1, $2, $3, $4, 'dialing', $5, $6, $5, $5) RETURNING id`,
      [await ctx.companyId(), lead.id, campaignId, lead.attempts + 1, now, new Date(now.getTime() + leaseMs)],
    );
    return attempt.id;
  },

  /** A lead found on the do-not-call list when it was to be dialed: final. */
  async doNotCall(ctx: RequestContext, leadId: number, now: Date): Promise<void> {
    await ctx.sql(`UPDATE leads SET state = 'do_not_call', next_attempt_at = NULL, updated_at = $2 WHERE id = $1`, [
      leadId,
      now,
    ]);
  },

  /** The company's number to call from: one for the dialer (or both) first. */
  async dialerNumber(ctx: RequestContext): Promise<string | null> {
    const [row] = await ctx.sql<{ phone_no: string }>(
      `SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY (use_for IN ('dialer', 'both')) DESC, id
       LIMIT 1`,
      [await ctx.companyId()],
    );
    return row?.phone_no ?? null;
  },

  /**
   * Holds the call id until this unit of work ends: the dialer recording it and its status callback take turns, so
   * whichever comes second sees the other's work (the call's end is settled once, by one of them).
   */
  async holdCall(ctx: RequestContext, callSid: string): Promise<void> {
    await ctx.sql('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCKS.dialedCall, callSid]);
  },

  /**
   * The provider's id of the attempt's call: `live` from now, with its pre-dial decision when one was asked. False
   * when the attempt is no longer dialing.
   */
  async recordCall(
    ctx: RequestContext,
    attemptId: number,
    callSid: string,
    decision: Record<string, unknown> | null,
    now: Date,
  ): Promise<boolean> {
    const rows = await ctx.sql(
      `UPDATE lead_attempts SET call_sid = $2, state = 'live', decision = coalesce($4::jsonb, decision), updated_at = $3
       WHERE id = $1 AND state = 'dialing' RETURNING id`,
      [attemptId, callSid, now, decision === null ? null : JSON.stringify(decision)],
    );
    return rows.length > 0;
  },

  /** The call's status and who answered, as its callbacks have told. */
  async callOutcome(
    ctx: RequestContext,
    callSid: string,
  ): Promise<{ status: string; answeredBy: string | null } | null> {
    const [row] = await ctx.sql<{ status: string; answeredBy: string | null }>(
      `SELECT status, answered_by AS "answeredBy" FROM calls WHERE provider_call_id = $1 AND company_id = $2`,
      [callSid, await ctx.companyId()],
    );
    return row ?? null;
  },

  /** The attempt (by its own id, or its call's), locked, with its campaign's retry rules; null when unknown. */
  async lockAttempt(ctx: RequestContext, by: { id: number } | { callSid: string }): Promise<AttemptToSettle | null> {
    const [row] = await ctx.sql<AttemptToSettle>(
      `SELECT a.id, a.state, a.lead_id AS "leadId", a.campaign_id AS "campaignId", a.attempt,
         (SELECT k.id FROM calls k WHERE k.provider_call_id = a.call_sid) AS "callId",
         (SELECT l.contact_id FROM leads l WHERE l.id = a.lead_id) AS "contactId",
         c.status AS "campaignStatus", c.max_attempts AS "maxAttempts", c.retry_minutes AS "retryMinutes",
         c.retry_on AS "retryOn"
       FROM lead_attempts a JOIN campaigns c ON c.id = a.campaign_id
       WHERE ${'id' in by ? 'a.id = $1' : 'a.call_sid = $1'} AND a.company_id = $2
       FOR UPDATE OF a`,
      ['id' in by ? by.id : by.callSid, await ctx.companyId()],
    );
    return row ?? null;
  },

  /** The attempt ended with its outcome (and its pre-dial decision, when given now); its lead's state and next attempt. */
  async endAttempt(
    ctx: RequestContext,
    attempt: AttemptToSettle,
    ended: { outcome: string; error: string | null; decision: Record<string, unknown> | null },
    lead: { state: string; nextAttemptAt: Date | null },
    now: Date,
  ): Promise<void> {
    const { outcome, error, decision } = ended;
    await ctx.sql(
      `UPDATE lead_attempts SET state = 'ended', outcome = $2, error = $3, ended_at = $4, updated_at = $4,
         decision = coalesce($5::jsonb, decision)
       WHERE id = $1`,
      [attempt.id, outcome, error?.slice(0, 255) ?? null, now, decision === null ? null : JSON.stringify(decision)],
    );
    await ctx.sql(
      `UPDATE leads SET state = $2, last_outcome = $3, next_attempt_at = $4, updated_at = $5 WHERE id = $1`,
      [attempt.leadId, lead.state, outcome, lead.nextAttemptAt, now],
    );
  },

  /** The campaign whose attempt placed this call (by the provider's id), if one did. */
  async campaignOfCall(ctx: RequestContext, callSid: string): Promise<number | null> {
    const [row] = await ctx.sql<{ campaign_id: number }>(
      'SELECT campaign_id FROM lead_attempts WHERE call_sid = $1 AND company_id = $2',
      [callSid, await ctx.companyId()],
    );
    return row?.campaign_id ?? null;
  },

  /** Whether the campaign has a lead that is not final. */
  async hasOpenLeads(ctx: RequestContext, campaignId: number): Promise<boolean> {
    const [row] = await ctx.sql<{ open: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM leads WHERE campaign_id = $1 AND state IN ${OPEN}) AS open`,
      [campaignId],
    );
    return row.open;
  },

  /** Attempts still `dialing` past their lease: their dialer stopped between the claim and the provider's answer. */
  stale(ctx: RequestContext, now: Date) {
    return ctx.sql<{ id: number; companyId: number; leadId: number; dialedAt: Date; phoneNumber: string }>(
      `SELECT a.id, a.company_id AS "companyId", a.lead_id AS "leadId", a.dialed_at AS "dialedAt",
         ct.phone_number AS "phoneNumber"
       FROM lead_attempts a JOIN leads l ON l.id = a.lead_id JOIN contacts ct ON ct.id = l.contact_id
       WHERE a.state = 'dialing' AND a.lease_until < $1 ORDER BY a.lease_until LIMIT 100`,
      [now],
    );
  },

  /**
   * Attempts `live` and not heard of since `before`: their end may have been reported while this service could not
   * take it (the provider gave up its callbacks). Each is marked heard of now, so it is asked about once a lease.
   */
  async quietLive(ctx: RequestContext, before: Date, now: Date) {
    return ctx.sql<{ id: number; companyId: number; callSid: string }>(
      `UPDATE lead_attempts SET updated_at = $2
       WHERE id IN (SELECT id FROM lead_attempts WHERE state = 'live' AND updated_at < $1 ORDER BY updated_at LIMIT 100)
       RETURNING id, company_id AS "companyId", call_sid AS "callSid"`,
      [before, now],
    );
  },

  /** A stale attempt the provider never received: gone, and its lead due again as if it had not been claimed. */
  async undoAttempt(ctx: RequestContext, attemptId: number, now: Date): Promise<boolean> {
    const [attempt] = await ctx.sql<{ lead_id: number }>(
      `DELETE FROM lead_attempts WHERE id = $1 AND state = 'dialing' AND lease_until < $2 RETURNING lead_id`,
      [attemptId, now],
    );
    if (!attempt) return false;
    await ctx.sql(
      `UPDATE leads SET state = CASE WHEN attempts > 1 THEN 'waiting' ELSE 'pending' END, attempts = attempts - 1,
         next_attempt_at = $2, updated_at = $2 WHERE id = $1 AND state = 'dialing'`,
      [attempt.lead_id, now],
    );
    return true;
  },
};
