import {
  Arg,
  Authorized,
  Ctx,
  Field,
  FieldResolver,
  Float,
  ID,
  Int,
  Mutation,
  ObjectType,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import { setThresholds, thresholdsOf } from '../services/agent-performance.js';
import type { AgentRecord, AgentService } from '../services/agent.service.js';
import type { IdCodec } from '../kernel/ids.js';
import type { RequestContext } from '../context/request-context.js';
import { AgentPageType, AgentType } from './phone-number.types.js';

@ObjectType('AgentPerformanceThresholds', { simpleResolvers: true })
export class AgentPerformanceThresholdsType {
  @Field(() => Float, {
    description:
      'agent.performance fires when the answer rate over the last 20 calls crosses this (0 to 1; default 0.6)',
  })
  answerRate!: number;

  @Field(() => Float, {
    description: 'and when the average sentiment (positive 1, neutral 0, negative -1) crosses this (default 0)',
  })
  averageSentiment!: number;
}

@Resolver(() => AgentType)
export class AgentResolver {
  constructor(
    private readonly agentService: AgentService,
    private readonly ids: IdCodec,
  ) {}

  @Authorized('view-agents')
  @Query(() => AgentPageType, { description: 'AI agents of the company, by name' })
  async agents(
    @Ctx() ctx: RequestContext,
    @Arg('search', () => String, { nullable: true }) search: string | null,
    @Arg('active', () => Boolean, { nullable: true }) active: boolean | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
  ): Promise<AgentPageType> {
    return this.agentService.list(ctx, { search, active, page, perPage });
  }

  @Authorized('manage-agents')
  @Mutation(() => AgentType)
  async createAgent(@Ctx() ctx: RequestContext, @Arg('name') name: string) {
    return this.agentService.create(ctx, name);
  }

  @Authorized('manage-agents')
  @Mutation(() => AgentType)
  async updateAgent(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('name', () => String, { nullable: true }) name: string | null,
    @Arg('active', () => Boolean, { nullable: true }) active: boolean | null,
  ) {
    return this.agentService.update(ctx, id, { name, active });
  }

  @Authorized('manage-agents')
  @Mutation(() => AgentType, { description: 'Switch an agent online or offline' })
  async setAgentOnline(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string, @Arg('online') online: boolean) {
    return this.agentService.setOnline(ctx, id, online);
  }

  @Authorized('view-agents')
  @Query(() => AgentPerformanceThresholdsType, { description: "The company's agent.performance thresholds" })
  async agentPerformanceThresholds(@Ctx() ctx: RequestContext): Promise<AgentPerformanceThresholdsType> {
    return thresholdsOf(ctx, await ctx.companyId());
  }

  @Authorized('manage-agents')
  @Mutation(() => AgentPerformanceThresholdsType, { description: 'Change either agent.performance threshold' })
  async setAgentPerformanceThresholds(
    @Ctx() ctx: RequestContext,
    @Arg('answerRate', () => Float, { nullable: true }) answerRate: number | null,
    @Arg('averageSentiment', () => Float, { nullable: true }) averageSentiment: number | null,
  ): Promise<AgentPerformanceThresholdsType> {
    return setThresholds(ctx, { answerRate, averageSentiment });
  }

  /** Sealed only when a query selects it (an AES-GCM seal per agent otherwise spent on every answer). */
  @FieldResolver(() => String, { description: 'The id encrypted under the app key, bound to agents' })
  encryptedId(@Root() agent: AgentRecord) {
    return this.ids.encrypt('agent', Number(agent.id));
  }
}
