import { LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { type PageWindow, readPage } from '../db/reads.js';
import { Agent } from '../entities/agent.entity.js';
import { Campaign } from '../entities/campaign.entity.js';
import { Lead } from '../entities/lead.entity.js';
import { Contact } from '../entities/contact.entity.js';
import { PipelineStage } from '../entities/pipeline-stage.entity.js';
import { PhoneNumber } from '../entities/phone-number.entity.js';
import { type Listed, listed } from './common.js';

/** What a campaign and a lead are listed with. */
export type CampaignListed =
  | 'id'
  | 'name'
  | 'status'
  | 'agent'
  | 'startedAt'
  | 'startsAt'
  | 'completedAt'
  | 'createdAt'
  | 'leads'
  | DialingField;

/** One attempt at a lead, as the API lists it (entities/lead-attempt.entity.ts). */
export interface AttemptListed {
  attempt: number;
  state: string;
  outcome: string | null;
  error: string | null;
  callSid: string | null;
  callId: number | null;
  dialedAt: Date;
  endedAt: Date | null;
  decision: Record<string, unknown> | null;
}

/** A campaign's dialing settings. */
export type DialingField =
  | 'concurrency'
  | 'fromNumber'
  | 'hoursStart'
  | 'hoursEnd'
  | 'callingDays'
  | 'ringSeconds'
  | 'maxAttempts'
  | 'retryMinutes'
  | 'retryOn'
  | 'predialEndpoint'
  | 'predialFallback';
export type DialingSettings = Pick<Campaign, DialingField>;
export type LeadListed =
  | 'id'
  | 'contact'
  | 'campaign'
  | 'pipelineStage'
  | 'source'
  | 'key'
  | 'variables'
  | 'timeZone'
  | 'timeZones'
  | 'state'
  | 'attempts'
  | 'lastOutcome'
  | 'nextAttemptAt'
  | 'createdAt';

// A company's dialer campaigns and leads: the one module that knows their tables.

export const campaignRepository = {
  /** The company's agent, when `id` is one of them. */
  async agentOf(ctx: RequestContext, id: number): Promise<Agent | null> {
    return ctx.em.findOne(Agent, { id, company: await ctx.companyId() });
  },

  async create(
    ctx: RequestContext,
    name: string,
    agent: Agent | null,
    dialing: Partial<DialingSettings>,
    now: Date,
  ): Promise<Campaign> {
    const campaign = ctx.em.create(Campaign, {
      ...dialing,
      company: await ctx.companyId(),
      name,
      agent,
      createdAt: now,
      updatedAt: now,
    });
    await ctx.em.flush();
    campaign.leads = 0;
    return campaign;
  },

  /** One page of the company's campaigns, newest first, each with its lead count. */
  async page(
    ctx: RequestContext,
    status: string | undefined,
    window: PageWindow,
  ): Promise<[Array<Listed<Campaign, CampaignListed>>, number]> {
    const params: unknown[] = [await ctx.companyId()];
    if (status) params.push(status);
    const { rows, total } = await readPage<Record<string, unknown>>(
      ctx,
      {
        select:
          'c.id, c.name, c.status, c.agent_id, c.started_at, c.completed_at, c.created_at, c.concurrency, ' +
          'c.from_number, c.hours_start, c.hours_end, c.calling_days, c.ring_seconds, c.max_attempts, ' +
          'c.retry_minutes, c.retry_on, c.starts_at, c.predial_endpoint_id, c.predial_fallback, ' +
          '(SELECT count(*)::int FROM leads l WHERE l.campaign_id = c.id) AS leads',
        from: 'campaigns c',
        where: status ? 'c.company_id = $1 AND c.status = $2' : 'c.company_id = $1',
        orderBy: 'c.created_at DESC, c.id DESC',
        params,
      },
      window,
    );
    return [listed(ctx, Campaign, rows), total];
  },

  /** The company's campaign with its lead count, locked until the unit of work ends; null otherwise. */
  async locked(ctx: RequestContext, id: number): Promise<Campaign | null> {
    return ctx.em.findOne(
      Campaign,
      { id, company: await ctx.companyId() },
      { populate: ['leads'], lockMode: LockMode.PESSIMISTIC_WRITE, lockTableAliases: ['c0'] },
    );
  },

  /** The company's campaign with its lead count, or null. */
  async withLeads(ctx: RequestContext, id: number): Promise<Campaign | null> {
    return ctx.em.findOne(Campaign, { id, company: await ctx.companyId() }, { populate: ['leads'] });
  },

  /** The company's campaign (a lead's), or null. */
  async byId(ctx: RequestContext, id: number): Promise<Campaign | null> {
    return ctx.em.findOne(Campaign, { id, company: await ctx.companyId() });
  },

  /** Whether the number is one of the company's. */
  async ownsNumber(ctx: RequestContext, phoneNumber: string): Promise<boolean> {
    return (await ctx.em.count(PhoneNumber, { company: await ctx.companyId(), phoneNo: phoneNumber })) > 0;
  },

  /** A stage of one of the company's pipelines, or null. */
  async stageOf(ctx: RequestContext, id: number): Promise<PipelineStage | null> {
    return ctx.em.findOne(PipelineStage, { id, pipeline: { company: await ctx.companyId() } });
  },

  async createLead(
    ctx: RequestContext,
    fields: { contact: number; campaign: Campaign | null; pipelineStage: PipelineStage | null; source: string | null },
    now: Date,
  ): Promise<Lead> {
    const lead = ctx.em.create(Lead, {
      ...fields,
      state: fields.campaign ? 'pending' : null,
      nextAttemptAt: fields.campaign ? now : null,
      company: await ctx.companyId(),
      createdAt: now,
      updatedAt: now,
    });
    await ctx.em.flush();
    return lead;
  },

  /** One page of the company's leads, newest first, of one campaign when `campaignId` is given. */
  async leads(
    ctx: RequestContext,
    campaignId: number | undefined,
    state: string | undefined,
    window: PageWindow,
  ): Promise<[Array<Listed<Lead, LeadListed>>, number]> {
    const params: unknown[] = [await ctx.companyId()];
    const where = ['l.company_id = $1'];
    if (campaignId !== undefined) where.push(`l.campaign_id = $${params.push(campaignId)}`);
    if (state !== undefined) where.push(`l.state = $${params.push(state)}`);
    const { rows, total } = await readPage<Record<string, unknown>>(
      ctx,
      {
        select:
          'l.id, l.contact_id, l.campaign_id, l.pipeline_stage_id, l.source, l.key, l.variables, l.time_zone, ' +
          'l.time_zones, l.state, l.attempts, l.last_outcome, l.next_attempt_at, l.created_at',
        from: 'leads l',
        where: where.join(' AND '),
        orderBy: 'l.created_at DESC, l.id DESC',
        params,
      },
      window,
    );
    return [listed(ctx, Lead, rows), total];
  },

  /** The phone numbers of these contacts of the company, by contact id. */
  async numbersOf(ctx: RequestContext, contactIds: number[]): Promise<Map<number, string>> {
    if (contactIds.length === 0) return new Map();
    const contacts = await ctx.em.find(
      Contact,
      { id: { $in: contactIds }, company: await ctx.companyId() },
      { fields: ['id', 'phoneNumber'], disableIdentityMap: true },
    );
    return new Map(contacts.map((c) => [c.id, c.phoneNumber]));
  },

  /** The campaign's leads not dialing now and not final: canceled (they are never dialed); how many. */
  async cancelOpenLeads(ctx: RequestContext, campaignId: number, now: Date): Promise<number> {
    return ctx.em.nativeUpdate(
      Lead,
      { campaign: campaignId, state: { $in: ['pending', 'waiting'] } },
      { state: 'canceled', nextAttemptAt: null, updatedAt: now },
    );
  },

  /** The campaign's leads counted by state. */
  async leadStates(ctx: RequestContext, campaignId: number): Promise<Record<string, number>> {
    const rows = await ctx.sql<{ state: string; n: number }>(
      'SELECT state, count(*)::int AS n FROM leads WHERE campaign_id = $1 AND state IS NOT NULL GROUP BY state',
      [campaignId],
    );
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  },

  /** Writes what was changed on the campaigns this unit of work holds. */
  save(ctx: RequestContext): Promise<void> {
    return ctx.em.flush();
  },

  /** The company's lead's attempts, in order, each with its call; null when the lead is not the company's. */
  async attempts(ctx: RequestContext, leadId: number): Promise<AttemptListed[] | null> {
    const company = await ctx.companyId();
    if ((await ctx.em.count(Lead, { id: leadId, company })) === 0) return null;
    return ctx.sql<AttemptListed>(
      `SELECT a.attempt, a.state, a.outcome, a.error, a.call_sid AS "callSid", k.id AS "callId",
         a.dialed_at AS "dialedAt", a.ended_at AS "endedAt", a.decision
       FROM lead_attempts a LEFT JOIN calls k ON k.provider_call_id = a.call_sid AND k.company_id = a.company_id
       WHERE a.lead_id = $1 AND a.company_id = $2 ORDER BY a.attempt`,
      [leadId, company],
    );
  },
};
