import type { RequestContext } from '../context/request-context.js';
import { dbDate, pageOf, pageWindow, readPage, type Page } from '../db/reads.js';
import { ConflictError, NotFoundError, ValidationError } from '../kernel/errors.js';
import type { IdCodec } from '../kernel/ids.js';
import { E164, Rules, message } from '../kernel/validation.js';
import { contactFields, type ContactService } from './contact.service.js';
import { CAMPAIGN_STATUSES } from '../kernel/vocabulary.js';
import { callRecords } from './calls/statements.js';
import type { AppointmentCallRecord } from './calls/records.js';
import { BOUNDS } from '../kernel/bounds.js';

// Dialer campaigns (draft -> running -> completed: campaign.started and
// campaign.completed), leads (a contact in a campaign or a pipeline stage:
// lead.generated) and appointments booked on a call (appointment.scheduled).

interface CampaignRow {
  id: number;
  name: string;
  status: string;
  agent_id: number | null;
  started_at: Date | string | null;
  completed_at: Date | string | null;
  created_at: Date | string;
  leads: number;
}

interface LeadRow {
  id: number;
  contact_id: number;
  campaign_id: number | null;
  pipeline_stage_id: number | null;
  source: string | null;
  created_at: Date | string;
}

/** A campaign as the GraphQL Campaign type serves it. */
export interface CampaignRecord {
  id: number;
  name: string;
  status: string;
  agentId: number | null;
  startedAt: Date | null;
  completedAt: Date | null;
  createdAt: Date;
  leads: number;
}

/** A lead as the GraphQL Lead type serves it. */
export interface LeadRecord {
  id: number;
  contactId: number;
  campaignId: number | null;
  pipelineStageId: number | null;
  source: string | null;
  createdAt: Date;
}

const campaignRecord = (row: CampaignRow): CampaignRecord => ({
  id: row.id,
  name: row.name,
  status: row.status,
  agentId: row.agent_id,
  startedAt: dbDate(row.started_at),
  completedAt: dbDate(row.completed_at),
  createdAt: dbDate(row.created_at),
  leads: row.leads,
});

const leadRecord = (row: LeadRow): LeadRecord => ({
  id: row.id,
  contactId: row.contact_id,
  campaignId: row.campaign_id,
  pipelineStageId: row.pipeline_stage_id,
  source: row.source,
  createdAt: dbDate(row.created_at),
});

export class CampaignService {
  constructor(
    private readonly ids: IdCodec,
    private readonly contacts: ContactService,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async create(ctx: RequestContext, input: { name?: string | null; agentId?: string | null }): Promise<CampaignRecord> {
    new Rules().required('name', input.name).maxChars('name', input.name, BOUNDS.campaign.name.maxLength).check();
    const companyId = await ctx.companyId();
    let agentId: number | null = null;
    if (input.agentId) {
      const id = this.ids.decode(input.agentId, 'agent');
      const [agent] =
        id === undefined
          ? []
          : await ctx.sql<{ id: number }>('SELECT id FROM agents WHERE id = $1 AND company_id = $2', [id, companyId]);
      if (!agent) throw ValidationError.field('agentId', message.oneOf('agentId'));
      agentId = agent.id;
    }
    const now = this.clock();
    const [row] = await ctx.sql<CampaignRow>(
      `INSERT INTO campaigns (company_id, name, status, agent_id, created_at, updated_at) VALUES ($1, $2, 'draft', $3, $4, $5) RETURNING *, 0 AS leads`,
      [companyId, input.name!.trim(), agentId, now, now],
    );
    return campaignRecord(row);
  }

  async list(
    ctx: RequestContext,
    args: { status?: string | null; page?: number | null; perPage?: number | null },
  ): Promise<Page<CampaignRecord>> {
    new Rules().oneOf('status', args.status ?? undefined, CAMPAIGN_STATUSES).check();
    const window = pageWindow(args);
    const companyId = await ctx.companyId();
    const where = args.status ? 'c.company_id = $1 AND c.status = $2' : 'c.company_id = $1';
    const params = args.status ? [companyId, args.status] : [companyId];
    const { rows, total } = await readPage<CampaignRow>(
      ctx,
      {
        select: 'c.*, (SELECT count(*)::int FROM leads l WHERE l.campaign_id = c.id) AS leads',
        from: 'campaigns c',
        where,
        orderBy: 'c.created_at DESC, c.id DESC',
        params,
      },
      window,
    );
    return pageOf(rows.map(campaignRecord), total, window);
  }

  /** draft -> running, once: campaign.started. */
  async start(ctx: RequestContext, rawId: string): Promise<CampaignRecord> {
    const row = await this.lock(ctx, rawId);
    if (row.status !== 'draft')
      throw new ConflictError(`The campaign is ${row.status}; only a draft campaign can start.`);
    const now = this.clock();
    const [updated] = await ctx.sql<CampaignRow>(
      `UPDATE campaigns SET status = 'running', started_at = $1, updated_at = $2 WHERE id = $3 RETURNING *, $4 AS leads`,
      [now, now, row.id, row.leads],
    );
    await ctx.events.record('campaign.started', {
      campaign_id: String(row.id),
      name: row.name,
      started_at: now.toISOString(),
    });
    return campaignRecord(updated);
  }

  /** running -> completed, once: campaign.completed. */
  async complete(ctx: RequestContext, rawId: string): Promise<CampaignRecord> {
    const row = await this.lock(ctx, rawId);
    if (row.status !== 'running')
      throw new ConflictError(`The campaign is ${row.status}; only a running campaign can complete.`);
    const now = this.clock();
    const [updated] = await ctx.sql<CampaignRow>(
      `UPDATE campaigns SET status = 'completed', completed_at = $1, updated_at = $2 WHERE id = $3 RETURNING *, $4 AS leads`,
      [now, now, row.id, row.leads],
    );
    await ctx.events.record('campaign.completed', {
      campaign_id: String(row.id),
      name: row.name,
      completed_at: now.toISOString(),
      leads: row.leads,
    });
    return campaignRecord(updated);
  }

  /** A lead: a contact (by id or phone number, made when new) in a campaign or a pipeline stage. */
  async createLead(
    ctx: RequestContext,
    input: {
      contactId?: string | null;
      phoneNumber?: string | null;
      campaignId?: string | null;
      pipelineStageId?: string | null;
      source?: string | null;
    },
  ): Promise<LeadRecord> {
    const rules = new Rules().maxChars('source', input.source, BOUNDS.campaign.leadSource.maxLength);
    if (!input.contactId && !input.phoneNumber)
      rules.add('contactId', 'The contact id or the phone number field is required.');
    if (input.phoneNumber && !E164.test(input.phoneNumber)) rules.add('phoneNumber', message.e164('phoneNumber'));
    if (!input.campaignId && !input.pipelineStageId)
      rules.add('campaignId', 'The campaign id or the pipeline stage id field is required.');
    rules.check();
    const companyId = await ctx.companyId();
    let contactId: number;
    if (input.contactId) {
      const id = this.ids.decode(input.contactId, 'contact');
      const [found] =
        id === undefined
          ? []
          : await ctx.sql<{ id: number }>('SELECT id FROM contacts WHERE id = $1 AND company_id = $2', [id, companyId]);
      if (!found) throw ValidationError.field('contactId', message.oneOf('contactId'));
      contactId = found.id;
    } else {
      contactId = (await this.contacts.findOrCreate(ctx, input.phoneNumber!)).id;
    }
    let campaignId: number | null = null;
    if (input.campaignId) {
      const id = this.ids.decode(input.campaignId, 'campaign');
      const [found] =
        id === undefined
          ? []
          : await ctx.sql<{ id: number; status: string }>(
              'SELECT id, status FROM campaigns WHERE id = $1 AND company_id = $2',
              [id, companyId],
            );
      if (!found) throw ValidationError.field('campaignId', message.oneOf('campaignId'));
      if (found.status === 'completed')
        throw ValidationError.field('campaignId', 'The campaign is completed: it takes no more leads.');
      campaignId = found.id;
    }
    let stageId: number | null = null;
    if (input.pipelineStageId) {
      const id = this.ids.decode(input.pipelineStageId, 'pipeline_stage');
      const [found] =
        id === undefined
          ? []
          : await ctx.sql<{ id: number }>(
              'SELECT s.id FROM pipeline_stages s JOIN pipelines p ON p.id = s.pipeline_id WHERE s.id = $1 AND p.company_id = $2',
              [id, companyId],
            );
      if (!found) throw ValidationError.field('pipelineStageId', message.oneOf('pipelineStageId'));
      stageId = found.id;
    }
    const now = this.clock();
    const [row] = await ctx.sql<LeadRow>(
      'INSERT INTO leads (company_id, contact_id, campaign_id, pipeline_stage_id, source, created_at, ' +
        'updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id, contact_id, campaign_id, pipeline_stage_id, ' +
        'source, created_at',
      [companyId, contactId, campaignId, stageId, input.source?.trim() || null, now, now],
    );
    const contact = (await this.contacts.byId(ctx, contactId))!;
    await ctx.events.record(
      'lead.generated',
      {
        lead_id: String(row.id),
        campaign_id: campaignId === null ? null : String(campaignId),
        pipeline_stage_id: stageId === null ? null : String(stageId),
        source: row.source,
      },
      contactFields(contact),
    );
    return leadRecord(row);
  }

  async leads(
    ctx: RequestContext,
    args: { campaignId?: string | null; page?: number | null; perPage?: number | null },
  ): Promise<Page<LeadRecord>> {
    const window = pageWindow(args);
    const companyId = await ctx.companyId();
    const campaign = args.campaignId ? this.ids.decode(args.campaignId, 'campaign') : undefined;
    if (args.campaignId && campaign === undefined) throw new NotFoundError('Campaign');
    const where = args.campaignId ? 'l.company_id = $1 AND l.campaign_id = $2' : 'l.company_id = $1';
    const params = args.campaignId ? [companyId, campaign] : [companyId];
    const { rows, total } = await readPage<LeadRow>(
      ctx,
      {
        select: 'l.id, l.contact_id, l.campaign_id, l.pipeline_stage_id, l.source, l.created_at',
        from: 'leads l',
        where,
        orderBy: 'l.created_at DESC, l.id DESC',
        params,
      },
      window,
    );
    return pageOf(rows.map(leadRecord), total, window);
  }

  /** Books (or moves) the appointment a call produced: appointment.scheduled when the time is new. */
  /** Books or moves a call's appointment; answers with the call as the appointment list shows it. */
  async bookAppointment(ctx: RequestContext, rawCallId: string, appointmentAt: string): Promise<AppointmentCallRecord> {
    const rules = new Rules().required('appointmentAt', appointmentAt);
    const at = new Date(appointmentAt);
    if (!rules.has('appointmentAt') && (!/^\d{4}-\d{2}-\d{2}T/.test(appointmentAt) || Number.isNaN(at.getTime())))
      rules.add(
        'appointmentAt',
        'The appointment at field must be an ISO 8601 date-time, such as 2026-11-24T15:00:00Z.',
      );
    rules.check();
    const companyId = await ctx.companyId();
    const id = this.ids.decode(rawCallId, 'call');
    const call = id === undefined ? undefined : await callRecords.lockForBooking(ctx, companyId, id);
    if (!call) throw new NotFoundError('Call');
    const booked = async () => (await callRecords.appointmentCall(ctx, companyId, call.id))!;
    if (call.appointmentAt && call.appointmentAt.getTime() === at.getTime()) return booked();
    await callRecords.setAppointment(ctx, call.id, at, this.clock());
    const known = call.contactId ? await this.contacts.byId(ctx, call.contactId) : undefined;
    const contact = known
      ? contactFields(known)
      : { phone_number: call.direction === 'inbound' ? call.fromNumber : call.toNumber };
    await ctx.events.record(
      'appointment.scheduled',
      {
        call_id: String(call.id),
        appointment_at: at.toISOString(),
        agent_id: call.agentId === null ? null : String(call.agentId),
      },
      contact,
    );
    return booked();
  }

  private async lock(ctx: RequestContext, rawId: string): Promise<CampaignRow> {
    const id = this.ids.decode(rawId, 'campaign');
    const companyId = await ctx.companyId();
    const [row] =
      id === undefined
        ? []
        : await ctx.sql<CampaignRow>(
            'SELECT c.*, (SELECT count(*)::int FROM leads l WHERE l.campaign_id = c.id) AS leads FROM campaigns ' +
              'c WHERE c.id = $1 AND c.company_id = $2 FOR UPDATE OF c',
            [id, companyId],
          );
    if (!row) throw new NotFoundError('Campaign');
    return row;
  }
}
