import { AFTER_DESCRIPTION } from './pagination.types.js';
import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { DashboardService } from '../services/dashboard.service.js';
import type { IdCodec } from '../ids.js';
import type { RequestContext } from '../context.js';
import type { AppointmentCallRecord } from '../services/dashboard.service.js';
import { formatWallClock } from '../time/zoned.js';
import {
  AppointmentCallPageType,
  AppointmentCallType,
  CallDetailsType,
  DashboardFilterInput,
  DashboardSummaryType,
  LocalPresenceType,
} from './dashboard.types.js';

const toRow = (call: AppointmentCallRecord): AppointmentCallType => ({
  id: call.id,
  callDatetime: call.callDatetime,
  agentName: call.agentName,
  numbers: { from: call.fromNumber, to: call.toNumber },
  duration: call.durationSeconds,
  appointment: call.appointment,
  status: call.status,
  direction: call.direction,
  sentiment: call.sentiment,
  recordingAvailable: call.recordingAvailable,
  get startedAt() {
    return call.startedAt;
  },
  get appointmentAt() {
    return call.appointmentAt;
  },
});

@Resolver()
export class DashboardResolver {
  constructor(
    private readonly dashboardService: DashboardService,
    private readonly ids: IdCodec,
  ) {}

  @Authorized()
  @Query(() => AppointmentCallPageType, { description: 'Calls in the date range that booked an appointment, newest first' })
  async appointmentCalls(
    @Ctx() ctx: RequestContext,
    @Arg('filter', () => DashboardFilterInput, { nullable: true }) filter: DashboardFilterInput | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after: string | null,
  ): Promise<AppointmentCallPageType> {
    const result = await this.dashboardService.appointments(ctx, { ...filter, page, perPage, after });
    return { ...result, records: result.records.map(toRow) };
  }

  @Authorized('view-ai-dashboard')
  @Query(() => DashboardSummaryType, { description: 'Totals for the same filters' })
  async dashboardSummary(@Ctx() ctx: RequestContext, @Arg('filter', () => DashboardFilterInput, { nullable: true }) filter: DashboardFilterInput | null): Promise<DashboardSummaryType> {
    const s = await this.dashboardService.summary(ctx, filter ?? {});
    return { ...s, averageDuration: s.averageDurationSeconds };
  }

  @Authorized('view-ai-dashboard')
  @Query(() => CallDetailsType)
  async callDetails(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<CallDetailsType> {
    const { call, timeZone } = await this.dashboardService.call(ctx, id);
    return {
      id: call.id,
      encryptedId: this.ids.encrypt('call', call.id),
      callDatetime: formatWallClock(call.startedAt, timeZone),
      startedAt: call.startedAt,
      agentId: call.agent?.id ?? null,
      agentName: call.agent?.name ?? null,
      numbers: { from: call.fromNumber, to: call.toNumber },
      duration: call.durationSeconds,
      status: call.status,
      direction: call.direction,
      sentiment: call.sentiment ?? null,
      recordingUrl: call.recordingUrl ?? null,
      transcript: call.transcript ?? null,
      disposition: call.disposition ?? null,
      tags: call.tags,
      customFields: call.customFields,
      appointment: call.appointmentAt ? formatWallClock(call.appointmentAt, timeZone) : null,
      appointmentAt: call.appointmentAt ?? null,
      contact: { name: call.contactName ?? null, email: call.contactEmail ?? null, phone: call.direction === 'inbound' ? call.fromNumber : call.toNumber },
    };
  }

  @Authorized()
  @Mutation(() => LocalPresenceType, { description: 'Which AI numbers local presence may use: All or Unassigned' })
  async updateLocalPresence(@Ctx() ctx: RequestContext, @Arg('numberAiLocalPresence') value: string): Promise<LocalPresenceType> {
    return { newValue: await this.dashboardService.setLocalPresence(ctx, value) };
  }
}
