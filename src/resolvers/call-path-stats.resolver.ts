import { Arg, Authorized, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import type { CallPathStatsService } from '../decisions/call-path-stats.service.js';
import { CallPathStatsType } from './call-path-stats.types.js';
import { StatsBucket } from './enums.js';
import { STATS_WINDOW } from './webhook-stats.resolver.js';

// Endpoint health for the call path (docs/call-routing.md): a decision endpoint's or an agent tool's record over time.

@Resolver()
export class CallPathStatsResolver {
  constructor(private readonly stats: CallPathStatsService) {}

  @Authorized('view-call-routing')
  @Query(() => CallPathStatsType, {
    description: `A decision endpoint's answers by outcome and its times over time. ${STATS_WINDOW}`,
  })
  decisionEndpointStats(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('from', () => String, { nullable: true }) from: string | null,
    @Arg('to', () => String, { nullable: true }) to: string | null,
    @Arg('bucket', () => StatsBucket, { nullable: true }) bucket: string | null,
  ) {
    return this.stats.forEndpoint(ctx, 'decision', id, { from, to, bucket });
  }

  @Authorized('view-agents')
  @Query(() => CallPathStatsType, {
    description: `An agent tool's answers by outcome and its times over time. ${STATS_WINDOW}`,
  })
  agentToolStats(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('from', () => String, { nullable: true }) from: string | null,
    @Arg('to', () => String, { nullable: true }) to: string | null,
    @Arg('bucket', () => StatsBucket, { nullable: true }) bucket: string | null,
  ) {
    return this.stats.forEndpoint(ctx, 'tool', id, { from, to, bucket });
  }
}
