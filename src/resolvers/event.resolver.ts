import { Arg, Authorized, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { type EventFeedService, FEED_LIMITS } from '../webhooks/tools/event-feed.service.js';
import { WebhookEvent } from './enums.js';
import { EventConnectionType } from './webhook.types.js';

@Resolver()
export class EventResolver {
  constructor(private readonly feed: EventFeedService) {}

  @Authorized('view-webhooks')
  @Query(() => EventConnectionType, {
    description:
      'Every event of the company, oldest first after the cursor, kept for WEBHOOK_RETENTION (an error with code ' +
      'GONE, HTTP 410, for a cursor older than that). An event appears once every transaction older than its own ' +
      'has ended, so following endCursor sees each event once.',
  })
  events(
    @Ctx() ctx: RequestContext,
    @Arg('after', () => String, { nullable: true, description: 'The endCursor of the page before' })
    after: string | null,
    @Arg('types', () => [WebhookEvent], { nullable: true, description: 'Only these event types' })
    types: string[] | null,
    @Arg('limit', () => Int, {
      nullable: true,
      description: `Events per page: default ${FEED_LIMITS.default}, 1 to ${FEED_LIMITS.max}`,
    })
    limit: number | null,
  ): Promise<EventConnectionType> {
    return this.feed.feed(ctx, { after, types, limit });
  }
}
