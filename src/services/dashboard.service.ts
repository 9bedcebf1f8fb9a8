import { raw } from '@mikro-orm/core';
import type { RequestContext } from '../context.js';
import type { IdCodec } from '../ids.js';
import { Agent, Call, Company } from '../entities/index.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { customRange, dateRange, DATE_RANGES, type DateRangeName, type Interval } from '../time/date-range.js';
import { parseCivilDate } from '../time/zoned.js';
import { Rules, message } from '../validation.js';
import { findOwned } from '../db/lookup.js';
import { likePattern, pageOf, pageWindow, readDeepPage, type Page, type PageArgs } from '../db/pagination.js';
import { appointmentCallRecord, callDetailsRecord, type AppointmentCallRecord, type AppointmentCallRow, type CallDetailsRecord } from './dashboard.records.js';

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

export interface DashboardSummary {
  calls: number;
  answered: number;
  appointments: number;
  /** Seconds. */
  averageDuration: number;
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
  agentId?: number;
  pattern?: string;
}

export const LOCAL_PRESENCE = ['All', 'Unassigned'] as const;

export class DashboardService {
  constructor(private readonly ids: IdCodec, private readonly clock: () => Date = () => new Date()) {}

  /**
   * Calls that booked an appointment, newest first, read as plain rows. A deep
   * page is found through the index on (company, start, id) of booked calls
   * (a deferred join), so page 5,000 costs about what page 1 does.
   */
  async appointments(ctx: RequestContext, filter: DashboardFilter & PageArgs): Promise<Page<AppointmentCallRecord>> {
    const window = pageWindow(filter);
    const { company, interval, agentId, pattern } = await this.scope(ctx, filter);
    const params: unknown[] = [company.id, interval.start, interval.end];
    let where = 'k.company_id = $1 AND k.appointment_at IS NOT NULL AND k.started_at >= $2 AND k.started_at < $3';
    if (agentId !== undefined) where += ` AND k.agent_id = $${params.push(agentId)}`;
    if (pattern !== undefined) {
      const p = `$${params.push(pattern)}`;
      where += ` AND (k.from_number ILIKE ${p} OR k.to_number ILIKE ${p} OR ka.name ILIKE ${p} OR k.contact_name ILIKE ${p} OR k.disposition ILIKE ${p})`;
    }
    const { rows, total, nextCursor } = await readDeepPage<AppointmentCallRow>(ctx, {
      // The wall clock in the company's zone, as PostgreSQL formats it.
      select: `c.id, c.started_at, c.appointment_at, a.name AS agent_name,
        to_char(c.started_at AT TIME ZONE co.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS call_datetime,
        to_char(c.appointment_at AT TIME ZONE co.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS appointment, c.from_number, c.to_number, c.duration_seconds, c.status, c.direction, c.sentiment, c.recording_url IS NOT NULL AS recording_available`,
      table: 'calls c',
      key: 'c.id',
      joins: 'JOIN companies co ON co.id = c.company_id LEFT JOIN agents a ON a.id = c.agent_id',
      orderBy: 'c.started_at DESC, c.id DESC',
      sort: 'c.started_at',
      keys: { key: 'k.id', sort: 'k.started_at', from: pattern === undefined ? 'calls k' : 'calls k LEFT JOIN agents ka ON ka.id = k.agent_id', where, orderBy: 'k.started_at DESC, k.id DESC' },
      params,
    }, window);
    const records = rows.map(appointmentCallRecord);
    return { ...pageOf(records, total, window), nextCursor };
  }

  async summary(ctx: RequestContext, filter: DashboardFilter): Promise<DashboardSummary> {
    const scope = await this.scope(ctx, filter);
    const { company, interval } = scope;
    const where: Record<string, unknown> = { company: company.id, startedAt: { $gte: interval.start, $lt: interval.end } };
    if (scope.agentId !== undefined) where.agent = scope.agentId;
    if (scope.pattern !== undefined) {
      where.$or = [
        { fromNumber: { $ilike: scope.pattern } },
        { toNumber: { $ilike: scope.pattern } },
        { agent: { name: { $ilike: scope.pattern } } },
        { contactName: { $ilike: scope.pattern } },
        { disposition: { $ilike: scope.pattern } },
      ];
    }
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
      averageDuration: totals.average,
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
  /** One call of the company (or, for an agency, of a child company), with its analysis. */
  async callDetails(ctx: RequestContext, rawId: string): Promise<CallDetailsRecord> {
    const id = this.ids.decode(rawId, 'call');
    const viewer = await ctx.viewer();
    const call = id === undefined ? null : await ctx.em.findOne(Call, { id }, { populate: ['agent', 'company'] });
    const visible = call && (call.company.id === viewer.company.id || (viewer.company.isAgency && call.company.parent?.id === viewer.company.id));
    if (!call || !visible) throw new NotFoundError('Call');
    return callDetailsRecord(this.ids, call, call.company.timeZone);
  }

  async setLocalPresence(ctx: RequestContext, value: string): Promise<string> {
    new Rules().required('numberAiLocalPresence', value).oneOf('numberAiLocalPresence', value, LOCAL_PRESENCE).check();
    await ctx.sql(
      `UPDATE companies SET settings = jsonb_set(settings, '{numberAiLocalPresence}', to_jsonb(?::text)), updated_at = now() WHERE id = ?`,
      [value, await ctx.companyId()],
    );
    return value;
  }

  /** The company the request may read, the interval, and the shared filters (the agent, checked to be the company's; the search pattern). */
  private async scope(ctx: RequestContext, filter: DashboardFilter): Promise<Scope> {
    const company = await this.company(ctx, filter.companyId);
    const interval = this.interval(filter, company.timeZone);
    let agentId: number | undefined;
    if (filter.agentId && filter.agentId !== 'All') {
      agentId = this.ids.decode(filter.agentId, 'agent');
      const [agent] = agentId === undefined ? [] : await ctx.read('SELECT 1 FROM agents WHERE id = $1 AND company_id = $2', [agentId, company.id]);
      if (!agent) throw new NotFoundError('Agent');
    }
    return { company, interval, agentId, pattern: filter.search ? likePattern(filter.search) : undefined };
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

