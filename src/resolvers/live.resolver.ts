import type { GraphQLSchema } from 'graphql';
import { Arg, Resolver, Root, Subscription } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { ForbiddenError } from '../kernel/errors.js';
import type { LiveEvent, LiveEvents } from '../services/live-events.js';
import { WebhookEvent } from './enums.js';
import { detailsOf, LiveEventInterface } from './live-event.types.js';

// Live updates for GraphQL dashboards: the company's events as they happen,
// the same events webhooks deliver, over graphql-ws on /graphql, each as its
// own typed type (live-event.types.ts).

/** The hub of each built schema (a subscription's subscribe function has only the schema to go by). */
const hubs = new WeakMap<GraphQLSchema, LiveEvents>();
export const attachLiveEvents = (schema: GraphQLSchema, live: LiveEvents) => void hubs.set(schema, live);
/** The hub of a built schema, for the subscriptions made of its events (a campaign's progress). */
export const hubOf = (schema: GraphQLSchema): LiveEvents | undefined => hubs.get(schema);

@Resolver()
export class LiveEventResolver {
  @Subscription(() => LiveEventInterface, {
    description: "The company's events as they happen, optionally only some types. Requires view-webhooks.",
    subscribe: async ({ args, context, info }) => {
      const ctx = context as RequestContext;
      const viewer = await ctx.requirePermissions(['view-webhooks']);
      // The event names themselves (call.ended): GraphQL has read each enum name as its value.
      const types = (args.types as string[] | null | undefined) ?? null;
      const hub = hubs.get(info.schema);
      if (!hub) throw new Error('Live events are not served by this process.');
      const companyId = viewer.company.id;
      // Asked again whenever who may do what changes: a revoked token, a lost permission, another company end the stream.
      const recheck = async () => {
        const now = await ctx.again().requirePermissions(['view-webhooks']);
        if (now.company.id !== companyId) throw new ForbiddenError();
      };
      return hub.subscribe(companyId, types, { viewer, recheck });
    },
  })
  events(
    @Root() event: LiveEvent,
    @Arg('types', () => [WebhookEvent], { nullable: true, description: 'Only these event types (default: all)' })
    _types: string[] | null,
  ): LiveEventInterface & { details: Record<string, unknown> } {
    return { ...event, details: detailsOf(event.type, event.data) };
  }
}
