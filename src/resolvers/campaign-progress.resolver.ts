import {
  Arg,
  Authorized,
  Ctx,
  Field,
  Float,
  ID,
  Int,
  ObjectType,
  Query,
  Resolver,
  Root,
  Subscription,
} from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import type { RequestContext } from '../context/request-context.js';
import { ForbiddenError } from '../kernel/errors.js';
import type { CampaignService } from '../services/campaign.service.js';
import type { LiveEvent } from '../services/live-events.js';
import { CampaignProgressType, progressOf } from './campaign.resolver.js';
import { hubOf } from './live.resolver.js';
import { DecidedBy, DecisionFallbackReason, DialOutcome, PredialAction } from './enums.js';

// A campaign's progress as it changes (docs/dialer.md): its counts by state now, then again each time one of its
// calls ends or the campaign itself changes, over graphql-ws on /graphql; and each lead's attempts. Requires
// view-campaigns.

@ObjectType('PredialDecision', { simpleResolvers: true, description: "What a campaign's pre-dial endpoint decided" })
class PredialDecisionType {
  @Field(() => DecidedBy, { description: "endpoint: its answer; fallback: the campaign's fallback" })
  decidedBy!: string;
  @Field(() => PredialAction) action!: string;
  @Field(() => GraphQLJSONObject, { description: "Variables its agent was told over the lead's own" })
  variables!: Record<string, string>;
  @Field(() => DecisionFallbackReason, { nullable: true }) fallbackReason!: string | null;
  @Field(() => String, { nullable: true, description: "A skip's reason, or why the answer was not taken" })
  reason!: string | null;
  @Field(() => Float, { nullable: true, description: 'ms from asking to the decision' }) latencyMs!: number | null;
}

@ObjectType('LeadAttempt', { simpleResolvers: true, description: "One of a campaign's attempts at a lead" })
class LeadAttemptType {
  @Field(() => Int, { description: 'From 1' }) attempt!: number;
  @Field({ description: 'dialing (claimed, the provider asked), live (its call goes on) or ended' }) state!: string;
  @Field(() => DialOutcome, { nullable: true }) outcome!: string | null;
  @Field(() => String, { nullable: true, description: "The provider's refusal, or a skip's reason" })
  error!: string | null;
  @Field(() => Int, { nullable: true, description: 'Its call (GET /api/ai/dashboard/calls/{id})' })
  callId!: number | null;
  @Field(() => String, { nullable: true, description: "The provider's call id" }) callSid!: string | null;
  @Field() dialedAt!: Date;
  @Field(() => Date, { nullable: true }) endedAt!: Date | null;
  @Field(() => PredialDecisionType, { nullable: true, description: 'When its campaign asks before each dial' })
  decision!: PredialDecisionType | null;
}

/** The events that move a campaign's counts. */
const MOVING = [
  'lead.called',
  'lead.generated',
  'campaign.started',
  'campaign.paused',
  'campaign.resumed',
  'campaign.canceled',
  'campaign.completed',
];

@Resolver()
export class CampaignProgressResolver {
  constructor(private readonly campaigns: CampaignService) {}

  @Subscription(() => CampaignProgressType, {
    description:
      "A campaign's leads by state: now, then each time a call of it ends or it changes. Requires view-campaigns.",
    subscribe: async ({ args, context, info }) => {
      const ctx = context as RequestContext;
      const viewer = await ctx.requirePermissions(['view-campaigns']);
      const hub = hubOf(info.schema);
      if (!hub) throw new Error('Live events are not served by this process.');
      const companyId = viewer.company.id;
      const recheck = async () => {
        const now = await ctx.again().requirePermissions(['view-campaigns']);
        if (now.company.id !== companyId) throw new ForbiddenError();
      };
      const events = hub.subscribe(companyId, MOVING, { viewer, recheck });
      const id = String(args.id);
      return (async function* (): AsyncGenerator<LiveEvent | null> {
        yield null;
        for await (const event of events) if (String(event.data.campaign_id) === id) yield event;
      })();
    },
  })
  async campaignProgress(
    @Root() _event: LiveEvent | null,
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
  ): Promise<CampaignProgressType> {
    return progressOf(await this.campaigns.progress(ctx, id));
  }

  @Authorized('view-campaigns')
  @Query(() => [LeadAttemptType], { description: "A campaign lead's attempts, in order" })
  async leadAttempts(@Ctx() ctx: RequestContext, @Arg('leadId', () => ID) leadId: string): Promise<LeadAttemptType[]> {
    return (await this.campaigns.attempts(ctx, leadId)).map((a) => ({
      ...a,
      decision: a.decision && {
        decidedBy: a.decision.decided_by as string,
        action: a.decision.action as string,
        variables: a.decision.variables as Record<string, string>,
        fallbackReason: a.decision.fallback_reason as string | null,
        reason: a.decision.reason as string | null,
        latencyMs: a.decision.latency_ms as number | null,
      },
    }));
  }
}
