import { Arg, Authorized, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import type { StatsArgs } from '../kernel/time/stats-window.js';
import type { WebhookStatsService } from '../webhooks/tools/stats.service.js';
import { StatsBucket } from './enums.js';
import { WebhookStatsType } from './webhook-stats.types.js';

// Endpoint health (docs/webhooks.md): a webhook's record over time, and the company's over all its webhooks.

/** The window's arguments, as every record over time takes them. */
export const STATS_WINDOW =
  'from and to: ISO 8601 date-times (default: the last hour of minutes, day of hours or 30 days of days, to now); ' +
  'minute buckets reach back 24 hours, hour and day buckets 90 days; a window spans at most 24 hours of minutes, ' +
  '30 days of hours or 90 days of days';

@Resolver()
export class WebhookStatsResolver {
  constructor(private readonly stats: WebhookStatsService) {}

  @Authorized('view-webhooks')
  @Query(() => WebhookStatsType, {
    description: `A webhook's attempts by outcome and answer times over time. ${STATS_WINDOW}`,
  })
  webhookStats(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('from', () => String, { nullable: true }) from: string | null,
    @Arg('to', () => String, { nullable: true }) to: string | null,
    @Arg('bucket', () => StatsBucket, { nullable: true }) bucket: string | null,
  ) {
    return this.stats.forWebhook(ctx, id, { from, to, bucket } satisfies StatsArgs);
  }

  @Authorized('view-webhooks')
  @Query(() => WebhookStatsType, { description: `All the company's webhooks' attempts over time. ${STATS_WINDOW}` })
  companyWebhookStats(
    @Ctx() ctx: RequestContext,
    @Arg('from', () => String, { nullable: true }) from: string | null,
    @Arg('to', () => String, { nullable: true }) to: string | null,
    @Arg('bucket', () => StatsBucket, { nullable: true }) bucket: string | null,
  ) {
    return this.stats.forCompany(ctx, { from, to, bucket });
  }
}
