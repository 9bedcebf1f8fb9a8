import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import type { AgentToolService } from '../decisions/tool.service.js';
import { AgentToolInputType, AgentToolType, CreatedAgentToolType, EndpointSecretType } from './decision.types.js';

@Resolver()
export class AgentToolResolver {
  constructor(private readonly tools: AgentToolService) {}

  @Authorized('view-agents')
  @Query(() => [AgentToolType], { description: "An agent's tools, by name (at most 50)" })
  agentTools(@Ctx() ctx: RequestContext, @Arg('agentId', () => ID) agentId: string) {
    return this.tools.ofAgent(ctx, agentId);
  }

  @Authorized('view-agents')
  @Query(() => AgentToolType)
  agentTool(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    return this.tools.view(ctx, id);
  }

  @Authorized('manage-agents')
  @Query(() => EndpointSecretType, { description: "The tool's signing secret" })
  async agentToolSecret(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    return { secret: await this.tools.secret(ctx, id) };
  }

  @Authorized('manage-agents')
  @Mutation(() => CreatedAgentToolType, { description: 'Gives an agent a tool it may call during calls' })
  createAgentTool(
    @Ctx() ctx: RequestContext,
    @Arg('agentId', () => ID) agentId: string,
    @Arg('input', () => AgentToolInputType) input: AgentToolInputType,
  ) {
    return this.tools.create(ctx, agentId, input);
  }

  @Authorized('manage-agents')
  @Mutation(() => AgentToolType)
  updateAgentTool(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => AgentToolInputType) input: AgentToolInputType,
  ) {
    return this.tools.update(ctx, id, input);
  }

  @Authorized('manage-agents')
  @Mutation(() => Boolean)
  deleteAgentTool(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    return this.tools.remove(ctx, id);
  }
}
