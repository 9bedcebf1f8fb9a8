import { raw } from '@mikro-orm/core';
import type { RequestContext } from '../context.js';
import type { IdCodec } from '../ids.js';
import { Agent, Call, Company } from '../entities/index.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { customRange, dateRange, DATE_RANGES, type DateRangeName, type Interval } from '../time/date-range.js';
import { parseCivilDate } from '../time/zoned.js';
import { Rules, message } from '../validation.js';
import { findOwned } from './lookup.js';
import { findPage, likePattern, pageWindow, type Page, type PageArgs } from './pagination.js';

export interface DashboardFilter {
  dateRange?: string | null;
  startDate?: string | null;
  endDate?: string | null;
  /** All (default) or an agent id. */
  agentId?: string | null;
  /** The signed-in company by default; an agency may name a child company. */
  companyId?: number | null;
  search?: string | null;
}

export interface AppointmentCall {
  call: Call;
  timeZone: string;
}

export interface DashboardSummary {
  calls: number;
  answered: number;
  appointments: number;
  averageDurationSeconds: number;
  sentiment: { positive: number; neutral: number; negative: number; unknown: number };
  from: Date;
  to: Date;
  timeZone: string;
}

/** The company a dashboard request reads. */
interface ScopedCompany {
  id: number;
  timeZone: string;
}

interface Scope {
  company: ScopedCompany;
  interval: Interval;
  where: Record<string, unknown>;
}

export const LOCAL_PRESENCE = ['All', 'Unassigned'] as const;

export class DashboardService {
  constructor(private readonly ids: IdCodec, private readonly clock: () => Date = () => new Date()) {}

  async appointments(ctx: RequestContext, filter: DashboardFilter & PageArgs): Promise<Page<AppointmentCall>> {
    const window = pageWindow(filter);
    const { company, where } = await this.scope(ctx, filter);
    where.appointmentAt = { $ne: null };
    const page = await findPage(ctx.em, Call, where, window, { populate: ['agent'], strategy: 'joined', orderBy: { startedAt: 'desc', id: 'desc' } });
    return { ...page, records: page.records.map((call) => ({ call, timeZone: company.timeZone })) };
  }

  async summary(ctx: RequestContext, filter: DashboardFilter): Promise<DashboardSummary> {
    const { company, interval, where } = await this.scope(ctx, filter);
    // One aggregate query over the same filters as the list.
    const totals = await ctx.em.createQueryBuilder(Call, 'c')
      .select([
        raw('count(*)::int as calls'),
        raw(`count(*) filter (where c.status = 'completed' and c.duration_seconds > 0)::int as answered`),
        raw('count(c.appointment_at)::int as appointments'),
        raw('coalesce(round(avg(c.duration_seconds)), 0)::int as average'),
        raw(`count(*) filter (where c.sentiment = 'positive')::int as positive`),
        raw(`count(*) filter (where c.sentiment = 'neutral')::int as neutral`),
        raw(`count(*) filter (where c.sentiment = 'negative')::int as negative`),
      ])
      .where(where)
      .execute<Record<string, number>>('get');
    return {
      calls: totals.calls,
      answered: totals.answered,
      appointments: totals.appointments,
      averageDurationSeconds: totals.average,
      sentiment: {
        positive: totals.positive,
        neutral: totals.neutral,
        negative: totals.negative,
        unknown: totals.calls - totals.positive - totals.neutral - totals.negative,
      },
      from: interval.start,
      to: interval.end,
      timeZone: company.timeZone,
    };
  }

  /** One call of the company, or of one of its child companies for an agency. */
  async call(ctx: RequestContext, rawId: string): Promise<AppointmentCall> {
    const id = this.ids.decode(rawId, 'call');
    const viewer = await ctx.viewer();
    const call = id === undefined ? null : await ctx.em.findOne(Call, { id }, { populate: ['agent', 'company'] });
    const visible = call && (call.company.id === viewer.company.id || (viewer.company.isAgency && call.company.parent?.id === viewer.company.id));
    if (!call || !visible) throw new NotFoundError('Call');
    return { call, timeZone: call.company.timeZone };
  }

  async setLocalPresence(ctx: RequestContext, value: string): Promise<string> {
    new Rules().required('number_ai_local_presence', value).oneOf('number_ai_local_presence', value, LOCAL_PRESENCE).check();
    await ctx.sql(
      `UPDATE companies SET settings = jsonb_set(settings, '{numberAiLocalPresence}', to_jsonb(?::text)), updated_at = now() WHERE id = ?`,
      [value, await ctx.companyId()],
    );
    return value;
  }

  /** The company the request may read, the interval, and the shared filters. */
  private async scope(ctx: RequestContext, filter: DashboardFilter): Promise<Scope> {
    const company = await this.company(ctx, filter.companyId);
    const interval = this.interval(filter, company.timeZone);
    const where: Record<string, unknown> = { company: company.id, startedAt: { $gte: interval.start, $lt: interval.end } };
    if (filter.agentId && filter.agentId !== 'All') {
      const agentId = this.ids.decode(filter.agentId, 'agent');
      const agent = agentId === undefined ? null : await ctx.em.findOne(Agent, { id: agentId, company: company.id });
      if (!agent) throw new NotFoundError('Agent');
      where.agent = agent.id;
    }
    if (filter.search) {
      const pattern = likePattern(filter.search);
      where.$or = [
        { fromNumber: { $ilike: pattern } },
        { toNumber: { $ilike: pattern } },
        { agent: { name: { $ilike: pattern } } },
        { contactName: { $ilike: pattern } },
        { disposition: { $ilike: pattern } },
      ];
    }
    return { company, interval, where };
  }

  private async company(ctx: RequestContext, companyId?: number | null): Promise<ScopedCompany> {
    const { company: own } = await ctx.viewer();
    if (companyId === undefined || companyId === null || companyId === own.id) return own;
    const child = own.isAgency ? await ctx.em.findOne(Company, { id: companyId, parent: own.id }) : null;
    if (!child) throw new ForbiddenError();
    return { id: child.id, timeZone: child.timeZone };
  }

  private interval(filter: DashboardFilter, timeZone: string): Interval {
    const rules = new Rules();
    if (filter.startDate || filter.endDate) {
      const start = filter.startDate ? parseCivilDate(filter.startDate) : undefined;
      const end = filter.endDate ? parseCivilDate(filter.endDate) : undefined;
      if (!filter.startDate) rules.add('startDate', 'The start date field is required when end date is present.');
      else if (!start) rules.add('startDate', message.date('startDate'));
      if (!filter.endDate) rules.add('endDate', 'The end date field is required when start date is present.');
      else if (!end) rules.add('endDate', message.date('endDate'));
      rules.check();
      const interval = customRange(start!, end!, timeZone);
      if (interval.start >= interval.end) throw ValidationError.field('endDate', 'The end date field must be a date after or equal to start date.');
      return interval;
    }
    const name = filter.dateRange || 'Today';
    rules.oneOf('dateRange', name, DATE_RANGES).check();
    return dateRange(name as DateRangeName, this.clock(), timeZone);
  }
}

