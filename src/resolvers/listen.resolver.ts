import type { GraphQLSchema } from 'graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, Field, ID, Int, Mutation, ObjectType, Resolver, Root, Subscription } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import type { ListenMessage, ListenSessions } from '../webhooks/tools/listen.js';
import { WebhookEvent } from './enums.js';
import { WebhookType } from './webhook.types.js';

// `npm run listen` over GraphQL: the session (a webhook delivered over this
// subscription for as long as it is open) and the command's report of each
// local answer.

@ObjectType('ListenSession', {
  simpleResolvers: true,
  description: 'The session webhook npm run listen opened, and its signing secret (shown this once)',
})
class ListenSessionType {
  @Field(() => WebhookType) webhook!: WebhookType;
  @Field() secret!: string;
}

@ObjectType('ListenDelivery', {
  simpleResolvers: true,
  description: 'One attempt to forward: the request exactly as it would be POSTed to an endpoint',
})
class ListenDeliveryType {
  @Field(() => ID, { description: 'Give it back with answerListenDelivery' }) key!: string;
  @Field({ description: 'The delivery (webhook-id)' }) deliveryId!: string;
  @Field(() => WebhookEvent) event!: string;
  @Field(() => Int) attempt!: number;
  @Field(() => GraphQLJSONObject, { description: 'Every header to send, signatures included' }) headers!: Record<
    string,
    string
  >;
  @Field({ description: 'The body to send, byte for byte' }) body!: string;
}

@ObjectType('ListenMessage', { simpleResolvers: true, description: 'The session first, then one delivery per message' })
class ListenMessageType {
  @Field(() => ListenSessionType, { nullable: true }) session!: ListenSessionType | null;
  @Field(() => ListenDeliveryType, { nullable: true }) delivery!: ListenDeliveryType | null;
}

/** The sessions of each built schema (a subscription's subscribe function has only the schema to go by). */
const sessions = new WeakMap<GraphQLSchema, ListenSessions>();
export const attachListen = (schema: GraphQLSchema, listen: ListenSessions) => void sessions.set(schema, listen);

@Resolver()
export class ListenResolver {
  constructor(private readonly listenSessions: ListenSessions) {}

  @Subscription(() => ListenMessageType, {
    description:
      "npm run listen's session: a webhook for these events, delivered over this subscription instead of HTTP while it is open, and deleted when it ends. " +
      'Answer each delivery with answerListenDelivery within the webhook timeout, or the attempt fails and ' +
      'is retried on the usual schedule. Requires manage-webhooks.',
    subscribe: async ({ args, context, info }) => {
      const ctx = context as RequestContext;
      await ctx.requirePermissions(['manage-webhooks']);
      const listen = sessions.get(info.schema);
      if (!listen) throw new Error('Listen sessions are not served by this process.');
      return listen.open(ctx, args.events as string[], args.forwardTo as string);
    },
  })
  listen(
    @Root() message: ListenMessage,
    @Arg('events', () => [WebhookEvent], { description: 'The event types to receive' }) _events: string[],
    @Arg('forwardTo', { description: 'Where the command forwards (an http or https URL; shown as the webhook url)' })
    _forwardTo: string,
  ): ListenMessageType {
    return 'session' in message
      ? { session: message.session, delivery: null }
      : { session: null, delivery: message.delivery };
  }

  @Authorized('manage-webhooks')
  @Mutation(() => Boolean, {
    description:
      "npm run listen's report of the local answer to one delivery: the status, or an error when none came; recorded as the attempt's result",
  })
  answerListenDelivery(
    @Ctx() ctx: RequestContext,
    @Arg('key', () => ID) key: string,
    @Arg('status', () => Int, { nullable: true }) status: number | null,
    @Arg('error', () => String, { nullable: true }) error: string | null,
    @Arg('responseBody', () => String, { nullable: true, description: 'At most the first 1,024 characters are kept' })
    responseBody: string | null,
  ): Promise<boolean> {
    return this.listenSessions.answer(ctx, key, { status, error, responseBody });
  }
}
