import { Arg, Authorized, Ctx, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import type { CampaignService } from '../services/campaign.service.js';
import { PageType } from './pagination.types.js';
import { CampaignStatus, DialOutcome, LeadState, PredialFallback } from './enums.js';
import { GraphQLJSONObject } from 'graphql-scalars';
import { CallType } from './dashboard.types.js';

@ObjectType('CampaignDialing', { simpleResolvers: true, description: 'How a campaign dials (docs/dialer.md)' })
export class CampaignDialingType {
  @Field(() => Int, { description: 'Calls at once, at most (under the company cap)' }) concurrency!: number;
  @Field(() => String, {
    nullable: true,
    description: "The company's number it calls from; none: its first for the dialer",
  })
  fromNumber!: string | null;
  @Field({ description: "Calling hours start, in each lead's own time (HH:MM)" }) hoursStart!: string;
  @Field({ description: 'Calling hours end (HH:MM): no call starts at or after it' }) hoursEnd!: string;
  @Field(() => [Int], { description: 'Calling days: 1 (Monday) to 7 (Sunday)' }) callingDays!: number[];
  @Field(() => Int, { description: 'Seconds a call rings before it is no answer' }) ringSeconds!: number;
  @Field(() => Int, { description: 'Attempts a lead gets at most, whatever their outcomes' }) maxAttempts!: number;
  @Field(() => [Int], { description: 'Minutes before each retry (the last repeats)' }) retryMinutes!: number[];
  @Field(() => [DialOutcome], { description: 'The outcomes retried' }) retryOn!: string[];
  @Field(() => ID, {
    nullable: true,
    description: 'The decision endpoint asked before each dial (dial, skip, or dial with variables); none: not asked',
  })
  predialEndpointId!: number | null;
  @Field(() => PredialFallback, { description: 'What is done when the pre-dial endpoint gives no answer in time' })
  predialFallback!: string;
}

@InputType('CampaignDialingInput', { description: 'How a campaign dials; each field left out keeps its default' })
export class CampaignDialingInput {
  @Field(() => Int, { nullable: true, description: '1 to 200; default 10' }) concurrency?: number | null;
  @Field(() => String, { nullable: true, description: "One of the company's numbers (E.164)" })
  fromNumber?: string | null;
  @Field(() => String, { nullable: true, description: 'HH:MM; default 08:00' }) hoursStart?: string | null;
  @Field(() => String, { nullable: true, description: 'HH:MM; default 21:00' }) hoursEnd?: string | null;
  @Field(() => [Int], { nullable: true, description: '1 (Monday) to 7 (Sunday); default every day' })
  callingDays?: number[] | null;
  @Field(() => Int, { nullable: true, description: '15 to 120; default 25' }) ringSeconds?: number | null;
  @Field(() => Int, { nullable: true, description: '1 to 10; default 3' }) maxAttempts?: number | null;
  @Field(() => [Int], { nullable: true, description: 'Default 30, 60, 120' }) retryMinutes?: number[] | null;
  @Field(() => [DialOutcome], { nullable: true, description: 'Default no_answer, busy' }) retryOn?: string[] | null;
  @Field(() => ID, { nullable: true, description: "One of the company's decision endpoints; default none" })
  predialEndpointId?: string | null;
  @Field(() => PredialFallback, { nullable: true, description: 'Default dial' }) predialFallback?: string | null;
}

@ObjectType('CampaignProgress', {
  simpleResolvers: true,
  description: "A campaign's leads by state; they add up to total",
})
export class CampaignProgressType {
  @Field(() => Int) total!: number;
  @Field(() => Int) pending!: number;
  @Field(() => Int) dialing!: number;
  @Field(() => Int) waiting!: number;
  @Field(() => Int) answered!: number;
  @Field(() => Int) noAnswer!: number;
  @Field(() => Int) busy!: number;
  @Field(() => Int) voicemail!: number;
  @Field(() => Int) failed!: number;
  @Field(() => Int) doNotCall!: number;
  @Field(() => Int) outsideHours!: number;
  @Field(() => Int) canceled!: number;
  @Field(() => Int) skipped!: number;
}

/** The counts as the CampaignProgress type has them. */
export function progressOf({ total, states }: { total: number; states: Record<string, number> }): CampaignProgressType {
  return {
    total,
    pending: states.pending,
    dialing: states.dialing,
    waiting: states.waiting,
    answered: states.answered,
    noAnswer: states.no_answer,
    busy: states.busy,
    voicemail: states.voicemail,
    failed: states.failed,
    doNotCall: states.do_not_call,
    outsideHours: states.outside_hours,
    canceled: states.canceled,
    skipped: states.skipped,
  };
}

@ObjectType('Campaign', { simpleResolvers: true })
export class CampaignType {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field(() => CampaignStatus) status!: string;
  @Field(() => Int, { nullable: true, description: 'The AI agent that dials' }) agentId!: number | null;
  @Field(() => Date, { nullable: true }) startedAt!: Date | null;
  @Field(() => Date, { nullable: true, description: 'When a scheduled campaign starts' }) startsAt!: Date | null;
  @Field(() => Date, { nullable: true }) completedAt!: Date | null;
  @Field() createdAt!: Date;
  @Field(() => Int, { description: 'Leads in the campaign' }) leads!: number;
  @Field(() => CampaignDialingType) dialing!: CampaignDialingType;
}

@ObjectType('CampaignPage', { simpleResolvers: true })
export class CampaignPageType extends PageType(CampaignType) {}

@ObjectType('Lead', { simpleResolvers: true })
export class LeadType {
  @Field(() => Int) id!: number;
  @Field(() => Int) contactId!: number;
  @Field(() => String, { nullable: true, description: "Its contact's number" }) phoneNumber?: string | null;
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
  @Field(() => Int, { description: 'Calls its campaign placed to it' }) attempts!: number;
  @Field(() => DialOutcome, { nullable: true, description: 'How its latest call ended' }) lastOutcome!: string | null;
  @Field(() => Date, { nullable: true, description: 'Not dialed before then (a retry, or its calling hours)' })
  nextAttemptAt!: Date | null;
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
    @Arg('dialing', () => CampaignDialingInput, { nullable: true }) dialing: CampaignDialingInput | null,
  ): Promise<CampaignType> {
    return this.campaignService.create(ctx, { name, agentId, dialing });
  }

  @Authorized('manage-campaigns')
  @Mutation(() => CampaignType, { description: 'Pause a running campaign: nothing more is dialed; calls finish' })
  async pauseCampaign(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<CampaignType> {
    return this.campaignService.pause(ctx, id);
  }

  @Authorized('manage-campaigns')
  @Mutation(() => CampaignType, { description: 'Resume a paused campaign' })
  async resumeCampaign(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<CampaignType> {
    return this.campaignService.resume(ctx, id);
  }

  @Authorized('manage-campaigns')
  @Mutation(() => CampaignType, {
    description: 'Cancel a campaign: its leads not dialed yet are canceled, never dialed; calls on the line finish',
  })
  async cancelCampaign(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<CampaignType> {
    return this.campaignService.cancel(ctx, id);
  }

  @Authorized('view-campaigns')
  @Query(() => CampaignProgressType, { description: "A campaign's leads by state" })
  async campaignProgress(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<CampaignProgressType> {
    return progressOf(await this.campaignService.progress(ctx, id));
  }

  @Authorized('manage-campaigns')
  @Mutation(() => CampaignType, { description: 'Start a draft campaign (campaign.started)' })
  async startCampaign(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<CampaignType> {
    return this.campaignService.start(ctx, id);
  }

  @Authorized('manage-campaigns')
  @Mutation(() => CampaignType, {
    description:
      'Schedule a draft campaign: the dialer starts it at startAt (campaign.started then), up to 90 days ahead',
  })
  async scheduleCampaign(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('startAt', { description: 'ISO 8601 date-time with its offset' }) startAt: string,
  ): Promise<CampaignType> {
    return this.campaignService.schedule(ctx, id, startAt);
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
    @Arg('state', () => LeadState, { nullable: true }) state: string | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
  ): Promise<LeadPageType> {
    return this.campaignService.leads(ctx, { campaignId, state, page, perPage });
  }

  @Authorized('view-campaigns')
  @Query(() => CampaignType, { description: 'One of the company campaigns' })
  async campaign(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<CampaignType> {
    return this.campaignService.byId(ctx, id);
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
