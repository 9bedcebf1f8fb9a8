import { AFTER_DESCRIPTION } from './pagination.types.js';
import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { DashboardService } from '../services/dashboard.service.js';
import type { CallAnalysisService } from '../services/call-analysis.service.js';
import type { RequestContext } from '../context/request-context.js';
import { LocalPresence } from './enums.js';
import {
  AppointmentCallPageType,
  CallAnalysisInput,
  CallType,
  DashboardFilterInput,
  DashboardSummaryType,
  LocalPresenceType,
} from './dashboard.types.js';

@Resolver()
export class DashboardResolver {
  constructor(
    private readonly dashboardService: DashboardService,
    private readonly analyses: CallAnalysisService,
  ) {}

  @Authorized()
  @Query(() => AppointmentCallPageType, {
    description: 'Calls in the date range that booked an appointment, newest first',
  })
  async appointmentCalls(
    @Ctx() ctx: RequestContext,
    @Arg('filter', () => DashboardFilterInput, { nullable: true }) filter: DashboardFilterInput | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after: string | null,
  ): Promise<AppointmentCallPageType> {
    return this.dashboardService.appointments(ctx, { ...filter, page, perPage, after });
  }

  @Authorized('view-ai-dashboard')
  @Query(() => DashboardSummaryType, { description: 'Totals for the same filters' })
  async dashboardSummary(
    @Ctx() ctx: RequestContext,
    @Arg('filter', () => DashboardFilterInput, { nullable: true }) filter: DashboardFilterInput | null,
  ): Promise<DashboardSummaryType> {
    return this.dashboardService.summary(ctx, filter ?? {});
  }

  @Authorized('view-ai-dashboard')
  @Query(() => CallType)
  async callDetails(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<CallType> {
    return this.dashboardService.callDetails(ctx, id);
  }

  @Authorized('analyze-calls')
  @Mutation(() => CallType, {
    description:
      "Records an ended call's post-call analysis (call.analyzed when it is new or changed); the call with it",
  })
  async analyzeCall(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('analysis', () => CallAnalysisInput) analysis: CallAnalysisInput,
  ): Promise<CallType> {
    await this.analyses.record(ctx, id, analysis);
    return this.dashboardService.callDetails(ctx, id);
  }

  @Authorized()
  @Mutation(() => LocalPresenceType, { description: 'Which AI numbers local presence may use: All or Unassigned' })
  async updateLocalPresence(
    @Ctx() ctx: RequestContext,
    @Arg('numberAiLocalPresence', () => LocalPresence) value: string,
  ): Promise<LocalPresenceType> {
    return { newValue: await this.dashboardService.setLocalPresence(ctx, value) };
  }
}
