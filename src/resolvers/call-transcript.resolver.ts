import type { GraphQLSchema } from 'graphql';
import { Arg, Authorized, Ctx, Field, ID, Int, ObjectType, Query, Resolver, Root, Subscription } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { ForbiddenError, ValidationError } from '../kernel/errors.js';
import type { TranscriptTurn } from '../services/live-events.js';
import type { CallTranscriptService } from '../services/call-transcript.service.js';
import { CallStatus, Direction, Speaker } from './enums.js';
import { CallDecisionType } from './decision.types.js';

// A call's live transcript over GraphQL: the turns so far, and each new turn
// as the provider reports it (graphql-ws, any API process).

@ObjectType('TranscriptTurn', { simpleResolvers: true, description: "One turn of a call's conversation" })
export class TranscriptTurnType {
  @Field(() => Int) callId!: number;
  @Field(() => Int, { description: 'The turn number in the call, from 0' }) sequence!: number;
  @Field(() => Speaker) speaker!: string;
  @Field() text!: string;
  @Field({ description: 'When the provider reported it' }) at!: Date;
}

@ObjectType('LiveCall', { simpleResolvers: true, description: 'A call in progress' })
export class LiveCallType {
  @Field(() => Int) id!: number;
  @Field(() => CallStatus, { description: 'initiated, ringing or in_progress' }) status!: string;
  @Field(() => Direction) direction!: string;
  @Field() fromNumber!: string;
  @Field() toNumber!: string;
  @Field() startedAt!: Date;
  @Field(() => String, { nullable: true }) agentName!: string | null;
  @Field(() => CallDecisionType, { nullable: true, description: 'How the call was routed, when the provider asked' })
  decision!: CallDecisionType | null;
}

/** The transcript service of each built schema (a subscription's subscribe function has only the schema to go by). */
const services = new WeakMap<GraphQLSchema, CallTranscriptService>();
export const attachTranscripts = (schema: GraphQLSchema, transcripts: CallTranscriptService) =>
  void services.set(schema, transcripts);

@Resolver()
export class CallTranscriptResolver {
  constructor(private readonly transcripts: CallTranscriptService) {}

  @Authorized('view-ai-dashboard')
  @Query(() => [LiveCallType], { description: "The company's calls in progress, newest first (at most 50)" })
  liveCalls(@Ctx() ctx: RequestContext): Promise<LiveCallType[]> {
    return this.transcripts.liveCalls(ctx);
  }

  @Authorized('view-ai-dashboard')
  @Query(() => [TranscriptTurnType], { description: "A call's live transcript so far, in order" })
  callTranscriptTurns(@Ctx() ctx: RequestContext, @Arg('callId', () => ID) callId: string): Promise<TranscriptTurn[]> {
    return this.transcripts.turns(ctx, callId);
  }

  @Subscription(() => TranscriptTurnType, {
    description:
      "A call's transcript turn by turn as the provider reports it (not webhooks). Requires view-ai-dashboard; another company's call is not found.",
    subscribe: async ({ args, context, info }) => {
      const ctx = context as RequestContext;
      const viewer = await ctx.requirePermissions(['view-ai-dashboard']);
      const service = services.get(info.schema);
      if (!service) throw new Error('Live transcripts are not served by this process.');
      const companyId = viewer.company.id;
      const recheck = async () => {
        const now = await ctx.again().requirePermissions(['view-ai-dashboard']);
        if (now.company.id !== companyId) throw new ForbiddenError();
      };
      const after = (args.after as number | null | undefined) ?? null;
      if (after !== null && after < -1)
        throw ValidationError.field(
          'after',
          `after must be -1 (every turn) or a turn's sequence (0 or more), got ${after}.`,
        );
      return service.subscribe(ctx, args.callId as string, { viewer, recheck }, after);
    },
  })
  callTranscript(
    @Root() turn: TranscriptTurn,
    @Arg('callId', () => ID) _callId: string,
    @Arg('after', () => Int, {
      nullable: true,
      description:
        'Send first the turns kept after this sequence (-1: every turn so far), then each new one: no turn said ' +
        'between a read of the transcript and the subscription is missed. Without it, new turns only.',
    })
    _after: number | null,
  ): TranscriptTurnType {
    return turn;
  }
}
