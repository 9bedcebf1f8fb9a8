import type { RequestContext } from '../context/request-context.js';
import { pageOf, pageWindow, type Page } from '../db/reads.js';
import type { Agent } from '../entities/agent.entity.js';
import type { Campaign } from '../entities/campaign.entity.js';
import type { DecisionEndpoint } from '../entities/decision-endpoint.entity.js';
import type { PipelineStage } from '../entities/pipeline-stage.entity.js';
import { type AttemptListed, campaignRepository } from '../repositories/campaign.repository.js';
import { type CampaignRecord, campaignRecord, type LeadRecord, leadRecord } from './campaign-records.js';
import { ConflictError, NotFoundError, ValidationError } from '../kernel/errors.js';
import type { IdCodec } from '../kernel/ids.js';
import { E164, Rules, message } from '../kernel/validation.js';
import { contactFields, type ContactRecord, type ContactService } from './contact.service.js';
import { CAMPAIGN_STATUSES, LEAD_STATES } from '../kernel/vocabulary.js';
import { checkedDialing, type DialingInput } from './campaign-dialing.js';
import { callReads } from '../repositories/call-reads.repository.js';
import { decisionEndpointRepository } from '../repositories/decision-endpoint.repository.js';
import { callRepository } from '../repositories/call.repository.js';
import { appointmentCallRecord, type AppointmentCallRecord } from './calls/records.js';
import { campaignOf } from './call.service.js';
import { BOUNDS, CAMPAIGN_LIMITS } from '../kernel/bounds.js';
import { parseInstant } from '../kernel/time/instant.js';

// Dialer campaigns (draft -> [scheduled ->] running -> completed: campaign.started and
// campaign.completed), leads (a contact in a campaign or a pipeline stage:
// lead.generated) and appointments booked on a call (appointment.scheduled).

export class CampaignService {
  constructor(
    private readonly ids: IdCodec,
    private readonly contacts: ContactService,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async create(
    ctx: RequestContext,
    input: { name?: string | null; agentId?: string | null; dialing?: DialingInput | null },
  ): Promise<CampaignRecord> {
    new Rules().required('name', input.name).maxChars('name', input.name, BOUNDS.campaign.name.maxLength).check();
    const dialing = checkedDialing(input.dialing);
    if (dialing.fromNumber && !(await campaignRepository.ownsNumber(ctx, dialing.fromNumber)))
      throw ValidationError.field(
        'dialing.fromNumber',
        "The dialing from number must be one of the company's numbers.",
      );
    let agent: Agent | null = null;
    if (input.agentId) {
      const id = this.ids.decode(input.agentId, 'agent');
      agent = id === undefined ? null : await campaignRepository.agentOf(ctx, id);
      if (!agent) throw ValidationError.field('agentId', message.oneOf('agentId'));
    }
    let predialEndpoint: DecisionEndpoint | null = null;
    const endpointId = input.dialing?.predialEndpointId;
    if (endpointId) {
      const id = this.ids.decode(endpointId, 'decision_endpoint');
      predialEndpoint = id === undefined ? null : await decisionEndpointRepository.ofCompany(ctx, id);
      if (!predialEndpoint)
        throw ValidationError.field(
          'dialing.predialEndpointId',
          `The dialing predial endpoint id must be one of the company's decision endpoints (got ${JSON.stringify(endpointId)}).`,
        );
    }
    return campaignRecord(
      await campaignRepository.create(ctx, input.name!.trim(), agent, { ...dialing, predialEndpoint }, this.clock()),
    );
  }

  async list(
    ctx: RequestContext,
    args: { status?: string | null; page?: number | null; perPage?: number | null },
  ): Promise<Page<CampaignRecord>> {
    new Rules().oneOf('status', args.status ?? undefined, CAMPAIGN_STATUSES).check();
    const window = pageWindow(args);
    const [campaigns, total] = await campaignRepository.page(ctx, args.status ?? undefined, window);
    return pageOf(campaigns.map(campaignRecord), total, window);
  }

  /** draft (or scheduled) -> running, once: campaign.started. */
  async start(ctx: RequestContext, rawId: string): Promise<CampaignRecord> {
    const campaign = await this.lock(ctx, rawId);
    if (campaign.status !== 'draft' && campaign.status !== 'scheduled')
      throw new ConflictError(`The campaign is ${campaign.status}; only a draft or scheduled campaign can start.`);
    return this.started(ctx, campaign);
  }

  /**
   * draft (or scheduled) -> scheduled: the dialer starts it at `startAt` (campaign.started then). A time in the past
   * by more than a few minutes is refused (a clock or zone mistake); one just past starts it at the dialer's next turn.
   */
  async schedule(ctx: RequestContext, rawId: string, startAt: string | null | undefined): Promise<CampaignRecord> {
    const now = this.clock();
    const { scheduleMinutesBack: minutesBack, scheduleDaysAhead: daysAhead } = CAMPAIGN_LIMITS;
    const at = startAt ? parseInstant(startAt) : undefined;
    const when = at?.getTime() ?? Number.NaN;
    if (!(when >= now.getTime() - minutesBack * 60_000 && when <= now.getTime() + daysAhead * 86_400_000))
      throw ValidationError.field(
        'startAt',
        `The start at field must be an ISO 8601 date-time with its offset, from now to ${daysAhead} days ahead ` +
          `(got ${startAt ? JSON.stringify(startAt) : 'none'}).`,
      );
    const campaign = await this.lock(ctx, rawId);
    if (campaign.status !== 'draft' && campaign.status !== 'scheduled')
      throw new ConflictError(
        `The campaign is ${campaign.status}; only a draft or scheduled campaign can be scheduled.`,
      );
    Object.assign(campaign, { status: 'scheduled', startsAt: at, updatedAt: now });
    await campaignRepository.save(ctx);
    return campaignRecord(campaign);
  }

  /** The dialer's: a scheduled campaign whose time has come starts (campaign.started, once). */
  async startWhenDue(ctx: RequestContext, id: number): Promise<void> {
    const campaign = await campaignRepository.locked(ctx, id);
    if (campaign?.status === 'scheduled' && campaign.startsAt && campaign.startsAt <= this.clock())
      await this.started(ctx, campaign);
  }

  private async started(ctx: RequestContext, campaign: Campaign): Promise<CampaignRecord> {
    const now = this.clock();
    Object.assign(campaign, { status: 'running', startedAt: now, updatedAt: now });
    await campaignRepository.save(ctx);
    await ctx.events.record('campaign.started', {
      campaign_id: String(campaign.id),
      name: campaign.name,
      started_at: now.toISOString(),
    });
    return campaignRecord(campaign);
  }

  /** running (or paused) -> completed, once: campaign.completed. Its leads not yet final stay as they are. */
  async complete(ctx: RequestContext, rawId: string): Promise<CampaignRecord> {
    const campaign = await this.lock(ctx, rawId);
    if (campaign.status !== 'running' && campaign.status !== 'paused')
      throw new ConflictError(`The campaign is ${campaign.status}; only a running or paused campaign can complete.`);
    await this.completed(ctx, campaign);
    return campaignRecord(campaign);
  }

  /** The dialer's: a running campaign whose leads are all final completes (campaign.completed, once). */
  async completeWhenRunning(ctx: RequestContext, id: number): Promise<void> {
    const campaign = await campaignRepository.locked(ctx, id);
    if (campaign?.status === 'running') await this.completed(ctx, campaign);
  }

  private async completed(ctx: RequestContext, campaign: Campaign): Promise<void> {
    const now = this.clock();
    Object.assign(campaign, { status: 'completed', completedAt: now, updatedAt: now });
    await campaignRepository.save(ctx);
    await ctx.events.record('campaign.completed', {
      campaign_id: String(campaign.id),
      name: campaign.name,
      completed_at: now.toISOString(),
      leads: campaign.leads ?? 0,
    });
  }

  /** running -> paused: nothing more is dialed; calls on the line finish (campaign.paused). */
  async pause(ctx: RequestContext, rawId: string): Promise<CampaignRecord> {
    const record = await this.move(ctx, rawId, ['running'], 'paused');
    await this.told(ctx, 'campaign.paused', record, { paused_at: this.clock().toISOString() });
    return record;
  }

  /** paused -> running: dialing goes on where it stopped (campaign.resumed). */
  async resume(ctx: RequestContext, rawId: string): Promise<CampaignRecord> {
    const record = await this.move(ctx, rawId, ['paused'], 'running');
    await this.told(ctx, 'campaign.resumed', record, { resumed_at: this.clock().toISOString() });
    return record;
  }

  /**
   * draft, running or paused -> canceled: every lead not dialed yet is canceled and never dialed; calls finish
   * (campaign.canceled).
   */
  async cancel(ctx: RequestContext, rawId: string): Promise<CampaignRecord> {
    const record = await this.move(ctx, rawId, ['draft', 'scheduled', 'running', 'paused'], 'canceled');
    const canceled = await campaignRepository.cancelOpenLeads(ctx, record.id, this.clock());
    await this.told(ctx, 'campaign.canceled', record, {
      canceled_at: this.clock().toISOString(),
      leads_canceled: canceled,
    });
    return record;
  }

  private told(
    ctx: RequestContext,
    type: 'campaign.paused' | 'campaign.resumed' | 'campaign.canceled',
    campaign: CampaignRecord,
    data: Record<string, unknown>,
  ): Promise<void> {
    return ctx.events.record(type, { campaign_id: String(campaign.id), name: campaign.name, ...data });
  }

  private async move(ctx: RequestContext, rawId: string, from: string[], to: string): Promise<CampaignRecord> {
    const campaign = await this.lock(ctx, rawId);
    if (!from.includes(campaign.status)) {
      const which = from.length === 1 ? `a ${from[0]}` : `a ${from.slice(0, -1).join(', ')} or ${from.at(-1)}`;
      throw new ConflictError(`The campaign is ${campaign.status}; only ${which} campaign can be ${to}.`);
    }
    Object.assign(campaign, { status: to, updatedAt: this.clock() });
    await campaignRepository.save(ctx);
    return campaignRecord(campaign);
  }

  /** The campaign's leads by state, every state named (0 where none), and their total. */
  async progress(ctx: RequestContext, rawId: string): Promise<{ total: number; states: Record<string, number> }> {
    const id = this.ids.decode(rawId, 'campaign');
    const campaign = id === undefined ? null : await campaignRepository.byId(ctx, id);
    if (!campaign) throw new NotFoundError('Campaign');
    const counted = await campaignRepository.leadStates(ctx, campaign.id);
    const states = Object.fromEntries(LEAD_STATES.map((state) => [state, counted[state] ?? 0]));
    return { total: Object.values(states).reduce((a, b) => a + b, 0), states };
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
    let contact: ContactRecord | undefined;
    if (input.contactId) {
      const id = this.ids.decode(input.contactId, 'contact');
      contact = id === undefined ? undefined : await this.contacts.byId(ctx, id);
      if (!contact) throw ValidationError.field('contactId', message.oneOf('contactId'));
    } else {
      contact = await this.contacts.findOrCreate(ctx, input.phoneNumber!);
    }
    let campaign: Campaign | null = null;
    if (input.campaignId) {
      const id = this.ids.decode(input.campaignId, 'campaign');
      campaign = id === undefined ? null : await campaignRepository.byId(ctx, id);
      if (!campaign) throw ValidationError.field('campaignId', message.oneOf('campaignId'));
      if (campaign.status === 'completed')
        throw ValidationError.field('campaignId', 'The campaign is completed: it takes no more leads.');
    }
    let stage: PipelineStage | null = null;
    if (input.pipelineStageId) {
      const id = this.ids.decode(input.pipelineStageId, 'pipeline_stage');
      stage = id === undefined ? null : await campaignRepository.stageOf(ctx, id);
      if (!stage) throw ValidationError.field('pipelineStageId', message.oneOf('pipelineStageId'));
    }
    const lead = await campaignRepository.createLead(
      ctx,
      { contact: contact.id, campaign, pipelineStage: stage, source: input.source?.trim() || null },
      this.clock(),
    );
    await ctx.events.record(
      'lead.generated',
      {
        lead_id: String(lead.id),
        campaign_id: campaign === null ? null : String(campaign.id),
        pipeline_stage_id: stage === null ? null : String(stage.id),
        source: lead.source,
      },
      contactFields(contact),
    );
    return leadRecord(lead);
  }

  /** A lead's attempts, in order: each one's outcome, its call and its pre-dial decision. 404 for another's lead. */
  async attempts(ctx: RequestContext, rawLeadId: string): Promise<AttemptListed[]> {
    const id = this.ids.decode(rawLeadId, 'lead');
    const attempts = id === undefined ? null : await campaignRepository.attempts(ctx, id);
    if (!attempts) throw new NotFoundError('Lead');
    return attempts;
  }

  async leads(
    ctx: RequestContext,
    args: { campaignId?: string | null; state?: string | null; page?: number | null; perPage?: number | null },
  ): Promise<Page<LeadRecord>> {
    new Rules().oneOf('state', args.state ?? undefined, LEAD_STATES).check();
    const window = pageWindow(args);
    const campaign = args.campaignId ? this.ids.decode(args.campaignId, 'campaign') : undefined;
    if (args.campaignId && campaign === undefined) throw new NotFoundError('Campaign');
    const [leads, total] = await campaignRepository.leads(ctx, campaign, args.state ?? undefined, window);
    const numbers = await campaignRepository.numbersOf(ctx, [...new Set(leads.map((l) => l.contact.id))]);
    return pageOf(
      leads.map((lead) => ({ ...leadRecord(lead), phoneNumber: numbers.get(lead.contact.id) ?? null })),
      total,
      window,
    );
  }

  /** One of the company's campaigns. */
  async byId(ctx: RequestContext, rawId: string): Promise<CampaignRecord> {
    const id = this.ids.decode(rawId, 'campaign');
    const campaign = id === undefined ? null : await campaignRepository.withLeads(ctx, id);
    if (!campaign) throw new NotFoundError('Campaign');
    return campaignRecord(campaign);
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
    const id = this.ids.decode(rawCallId, 'call');
    const call = id === undefined ? null : await callRepository.lockedById(ctx, id);
    if (!call) throw new NotFoundError('Call');
    const booked = async () => appointmentCallRecord((await callReads.appointmentRow(ctx, call.id))!);
    if (call.appointmentAt && call.appointmentAt.getTime() === at.getTime()) return booked();
    call.appointmentAt = at;
    await callRepository.save(ctx);
    const known = call.contact ? await this.contacts.byId(ctx, call.contact.id) : undefined;
    const contact = known
      ? contactFields(known)
      : { phone_number: call.direction === 'inbound' ? call.fromNumber : call.toNumber };
    await ctx.events.record(
      'appointment.scheduled',
      {
        call_id: String(call.id),
        appointment_at: at.toISOString(),
        agent_id: call.agent ? String(call.agent.id) : null,
        ...(await campaignOf(ctx, call.providerCallId)),
      },
      contact,
    );
    return booked();
  }

  private async lock(ctx: RequestContext, rawId: string): Promise<Campaign> {
    const id = this.ids.decode(rawId, 'campaign');
    const campaign = id === undefined ? null : await campaignRepository.locked(ctx, id);
    if (!campaign) throw new NotFoundError('Campaign');
    return campaign;
  }
}
