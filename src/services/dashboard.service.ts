import { LOCAL_PRESENCE } from '../kernel/vocabulary.js';
import { companyRepository } from '../repositories/company.repository.js';
import { agentRepository } from '../repositories/agent.repository.js';
import type { RequestContext, Viewer } from '../context/request-context.js';
import type { IdCodec } from '../kernel/ids.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../kernel/errors.js';
import { customRange, dateRange, DATE_RANGES, type DateRangeName, type Interval } from '../kernel/time/date-range.js';
import { parseCivilDate } from '../kernel/time/zoned.js';
import { Rules, message } from '../kernel/validation.js';
import { likePattern, pageOf, pageWindow, type Page, type PageArgs } from '../db/reads.js';
import type { Call } from '../entities/call.entity.js';
import { callReads } from '../repositories/call-reads.repository.js';
import { callRepository } from '../repositories/call.repository.js';
import {
  appointmentCallRecord,
  callDetailsRecord,
  type AppointmentCallRecord,
  type CallDetailsRecord,
} from './calls/records.js';

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
  /** What the summary is of (company, interval, agent, search), opaque: a client's cache keys it by this. */
  id: string;
  calls: number;
  answered: number;
  appointments: number;
  /** Seconds. */
  averageDuration: number;
  sentiment: { id: string; positive: number; neutral: number; negative: number; unknown: number };
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

export class DashboardService {
  constructor(
    private readonly ids: IdCodec,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Calls that booked an appointment, newest first, read as plain rows. A deep
   * page is found through the index on (company, start, id) of booked calls
   * (a deferred join), so page 5,000 costs about what page 1 does.
   */
  async appointments(ctx: RequestContext, filter: DashboardFilter & PageArgs): Promise<Page<AppointmentCallRecord>> {
    const window = pageWindow(filter);
    const { company, interval, agentId, pattern } = await this.scope(ctx, filter);
    const { rows, total, nextCursor } = await callReads.appointmentPage(
      ctx,
      { companyId: company.id, interval, agentId, pattern },
      window,
    );
    return { ...pageOf(rows.map(appointmentCallRecord), total, window), nextCursor };
  }

  async summary(ctx: RequestContext, filter: DashboardFilter): Promise<DashboardSummary> {
    const scope = await this.scope(ctx, filter);
    const { company, interval } = scope;
    const totals = await callReads.totals(ctx, {
      companyId: company.id,
      interval,
      agentId: scope.agentId,
      pattern: scope.pattern,
    });
    // The same question asked again has the same id, so a normalized cache merges what two queries ask of it.
    const id = Buffer.from(
      JSON.stringify([
        company.id,
        interval.start.getTime(),
        interval.end.getTime(),
        scope.agentId ?? null,
        scope.pattern ?? null,
      ]),
    ).toString('base64url');
    return {
      id,
      calls: totals.calls,
      answered: totals.answered,
      appointments: totals.appointments,
      averageDuration: totals.average,
      sentiment: {
        id,
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

  /** One call of the company (or, for an agency, of a child company), with its analysis. */
  async callDetails(ctx: RequestContext, rawId: string): Promise<CallDetailsRecord> {
    const id = this.ids.decode(rawId, 'call');
    const viewer = await ctx.viewer();
    const [call] = id === undefined ? [] : await callRepository.withCompanies(ctx, [id]);
    if (!call || !visibleTo(viewer, call)) throw new NotFoundError('Call');
    return callDetailsRecord(this.ids, call);
  }

  /** The details of calls by id, read together (the rows of a page); needs view-ai-dashboard, leaves out what the viewer may not see. */
  async detailsOf(ctx: RequestContext, ids: number[]): Promise<Map<number, CallDetailsRecord>> {
    const viewer = await ctx.requirePermissions(['view-ai-dashboard']);
    const calls = await callRepository.withCompanies(ctx, ids);
    return new Map(
      calls.filter((call) => visibleTo(viewer, call)).map((call) => [call.id, callDetailsRecord(this.ids, call)]),
    );
  }

  async setLocalPresence(ctx: RequestContext, value: string): Promise<string> {
    new Rules().required('numberAiLocalPresence', value).oneOf('numberAiLocalPresence', value, LOCAL_PRESENCE).check();
    await companyRepository.setSetting(ctx, 'numberAiLocalPresence', value);
    return value;
  }

  /** The company the request may read, the interval, and the shared filters (the agent, checked to be the company's; the search pattern). */
  private async scope(ctx: RequestContext, filter: DashboardFilter): Promise<Scope> {
    const company = await this.company(ctx, filter.companyId);
    const interval = this.interval(filter, company.timeZone);
    let agentId: number | undefined;
    if (filter.agentId && filter.agentId !== 'All') {
      agentId = this.ids.decode(filter.agentId, 'agent');
      if (agentId === undefined || !(await agentRepository.belongsTo(ctx, agentId, company.id)))
        throw new NotFoundError('Agent');
    }
    return { company, interval, agentId, pattern: filter.search ? likePattern(filter.search) : undefined };
  }

  private async company(ctx: RequestContext, companyId?: number | null): Promise<ScopedCompany> {
    const { company: own } = await ctx.viewer();
    if (companyId === undefined || companyId === null || companyId === own.id) return own;
    const child = own.isAgency ? await companyRepository.child(ctx, companyId, own.id) : null;
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
      if (interval.start >= interval.end)
        throw ValidationError.field('endDate', 'The end date field must be a date after or equal to start date.');
      return interval;
    }
    const name = filter.dateRange || 'Today';
    rules.oneOf('dateRange', name, DATE_RANGES).check();
    return dateRange(name as DateRangeName, this.clock(), timeZone);
  }
}

/** A call of the viewer's company, or of one of its child companies for an agency. */
const visibleTo = (viewer: Viewer, call: Call) =>
  call.company.id === viewer.company.id || (viewer.company.isAgency && call.company.parent?.id === viewer.company.id);
