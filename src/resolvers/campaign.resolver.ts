import { Arg, Authorized, Ctx, Field, ID, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import type { CampaignService } from '../services/campaign.service.js';
import { PageType } from './pagination.types.js';
import { CampaignStatus, LeadState } from './enums.js';
import { GraphQLJSONObject } from 'graphql-scalars';
import { CallType } from './dashboard.types.js';

@ObjectType('Campaign', { simpleResolvers: true })
export class CampaignType {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field(() => CampaignStatus) status!: string;
  @Field(() => Int, { nullable: true, description: 'The AI agent that dials' }) agentId!: number | null;
  @Field(() => Date, { nullable: true }) startedAt!: Date | null;
  @Field(() => Date, { nullable: true }) completedAt!: Date | null;
  @Field() createdAt!: Date;
  @Field(() => Int, { description: 'Leads in the campaign' }) leads!: number;
}

@ObjectType('CampaignPage', { simpleResolvers: true })
export class CampaignPageType extends PageType(CampaignType) {}

@ObjectType('Lead', { simpleResolvers: true })
export class LeadType {
  @Field(() => Int) id!: number;
  @Field(() => Int) contactId!: number;
  @Field(() => Int, { nullable: true }) campaignId!: number | null;
  @Field(() => Int, { nullable: true }) pipelineStageId!: number | null;
  @Field(() => String, { nullable: true }) source!: string | null;
  @Field(() => String, { nullable: true, description: 'Its key in its campaign (an import gives one)' })
  key!: string | null;
  @Field(() => GraphQLJSONObject, { description: 'What its agent is told' }) variables!: Record<string, unknown>;
  @Field(() => String, { nullable: true, description: 'The IANA zone it was given with' }) timeZone!: string | null;
  @Field(() => [String], {
    description: "The zones its calling hours are kept in: its own, else its number's; none: the company's",
  })
  timeZones!: string[];
  @Field(() => LeadState, { nullable: true, description: 'Where it stands in its campaign; none outside one' })
  state!: string | null;
  @Field() createdAt!: Date;
}

@ObjectType('LeadPage', { simpleResolvers: true })
export class LeadPageType extends PageType(LeadType) {}

@Resolver()
export class CampaignResolver {
  constructor(private readonly campaignService: CampaignService) {}

  @Authorized('view-campaigns')
  @Query(() => CampaignPageType, { description: 'Dialer campaigns, newest first' })
  async campaigns(
    @Ctx() ctx: RequestContext,
    @Arg('status', () => CampaignStatus, { nullable: true }) status: string | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
  ): Promise<CampaignPageType> {
    return this.campaignService.list(ctx, { status, page, perPage });
  }

  @Authorized('manage-campaigns')
  @Mutation(() => CampaignType, { description: 'A draft campaign' })
  async createCampaign(
    @Ctx() ctx: RequestContext,
    @Arg('name') name: string,
    @Arg('agentId', () => ID, { nullable: true }) agentId: string | null,
  ): Promise<CampaignType> {
    return this.campaignService.create(ctx, { name, agentId });
  }

  @Authorized('manage-campaigns')
  @Mutation(() => CampaignType, { description: 'Start a draft campaign (campaign.started)' })
  async startCampaign(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<CampaignType> {
    return this.campaignService.start(ctx, id);
  }

  @Authorized('manage-campaigns')
  @Mutation(() => CampaignType, { description: 'Complete a running campaign (campaign.completed)' })
  async completeCampaign(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<CampaignType> {
    return this.campaignService.complete(ctx, id);
  }

  @Authorized('view-campaigns')
  @Query(() => LeadPageType, { description: 'Leads, newest first' })
  async leads(
    @Ctx() ctx: RequestContext,
    @Arg('campaignId', () => ID, { nullable: true }) campaignId: string | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
  ): Promise<LeadPageType> {
    return this.campaignService.leads(ctx, { campaignId, page, perPage });
  }

  @Authorized('manage-campaigns')
  @Mutation(() => LeadType, {
    description: 'A contact (by id, or by number: made when new) in a campaign or a pipeline stage (lead.generated)',
  })
  async createLead(
    @Ctx() ctx: RequestContext,
    @Arg('contactId', () => ID, { nullable: true }) contactId: string | null,
    @Arg('phoneNumber', () => String, { nullable: true }) phoneNumber: string | null,
    @Arg('campaignId', () => ID, { nullable: true }) campaignId: string | null,
    @Arg('pipelineStageId', () => ID, { nullable: true }) pipelineStageId: string | null,
    @Arg('source', () => String, { nullable: true }) source: string | null,
  ): Promise<LeadType> {
    return this.campaignService.createLead(ctx, { contactId, phoneNumber, campaignId, pipelineStageId, source });
  }

  @Authorized('book-appointments')
  @Mutation(() => CallType, {
    description:
      'Book or move the appointment a call produced (appointment.scheduled when the time is new); the call ' +
      'as the appointment list shows it, so a cached row updates',
  })
  async bookCallAppointment(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('appointmentAt') appointmentAt: string,
  ) {
    return this.campaignService.bookAppointment(ctx, id, appointmentAt);
  }
}
