import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import type { DecisionEndpointService } from '../decisions/decision.service.js';
import {
  CreatedDecisionEndpointType,
  DecisionEndpointInputType,
  DecisionEndpointType,
  EndpointSecretType,
} from './decision.types.js';

@Resolver()
export class DecisionResolver {
  constructor(private readonly endpoints: DecisionEndpointService) {}

  @Authorized('view-call-routing')
  @Query(() => [DecisionEndpointType], {
    description: "The company's decision endpoints: its own first, then one per number (at most 100)",
  })
  decisionEndpoints(@Ctx() ctx: RequestContext) {
    return this.endpoints.list(ctx);
  }

  @Authorized('view-call-routing')
  @Query(() => DecisionEndpointType)
  decisionEndpoint(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    return this.endpoints.view(ctx, id);
  }

  @Authorized('manage-call-routing')
  @Query(() => EndpointSecretType, { description: "The endpoint's signing secret" })
  async decisionEndpointSecret(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    return { secret: await this.endpoints.secret(ctx, id) };
  }

  @Authorized('manage-call-routing')
  @Mutation(() => CreatedDecisionEndpointType, {
    description:
      'Names the URL asked how to route inbound calls (the company, or one number), its deadline and fallback',
  })
  createDecisionEndpoint(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => DecisionEndpointInputType) input: DecisionEndpointInputType,
  ) {
    return this.endpoints.create(ctx, input);
  }

  @Authorized('manage-call-routing')
  @Mutation(() => DecisionEndpointType)
  updateDecisionEndpoint(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => DecisionEndpointInputType) input: DecisionEndpointInputType,
  ) {
    return this.endpoints.update(ctx, id, input);
  }

  @Authorized('manage-call-routing')
  @Mutation(() => Boolean)
  deleteDecisionEndpoint(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    return this.endpoints.remove(ctx, id);
  }
}
