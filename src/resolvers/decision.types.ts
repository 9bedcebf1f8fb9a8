import { EndpointCredentialsInputType, EndpointCredentialsType } from './credentials.types.js';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { BOUNDS, inWords } from '../kernel/bounds.js';
import { BreakerState, DecidedBy, DecisionAction, DecisionFallbackReason } from './enums.js';

// GraphQL shapes of decision endpoints and of a call's decision (docs/adr/0068-decisions-in-the-call-path.md).

@ObjectType('DecisionFallback', {
  simpleResolvers: true,
  description: 'What decides when the endpoint does not in time',
})
export class DecisionFallbackType {
  @Field(() => DecisionAction) action!: string;
  @Field(() => ID, { nullable: true, description: "answer: the agent (null: the number's own)" }) agentId!:
    | number
    | null;
  @Field(() => String, { nullable: true, description: 'forward: the number, E.164' }) forwardTo!: string | null;
}

@ObjectType('EndpointBreaker', {
  simpleResolvers: true,
  description: "The endpoint's circuit breaker as the API process answering sees it (each process keeps its own)",
})
export class EndpointBreakerType {
  @Field(() => BreakerState) state!: string;
  @Field(() => Int) consecutiveFailures!: number;
  @Field(() => Date, { nullable: true }) openedAt!: Date | null;
  @Field(() => Int, { nullable: true, description: 'p95 of recent answers, ms (the hedge waits this long)' })
  recentP95Ms!: number | null;
}

@ObjectType('DecisionEndpoint', {
  simpleResolvers: true,
  description: 'The URL asked how to route an inbound call, within a deadline, with a fallback',
})
export class DecisionEndpointType {
  @Field(() => ID) id!: number;
  @Field() url!: string;
  @Field(() => ID, { nullable: true, description: "The number it decides for; null: the company's other numbers" })
  phoneNumberId!: number | null;
  @Field(() => Int, { description: 'From the call arriving to the decision, ms' }) deadlineMs!: number;
  @Field({ description: "A second request when the first is slower than the endpoint's recent p95" }) hedge!: boolean;
  @Field(() => DecisionFallbackType) fallback!: DecisionFallbackType;
  @Field(() => EndpointBreakerType) breaker!: EndpointBreakerType;
  @Field(() => EndpointCredentialsType, {
    nullable: true,
    description: 'OAuth2 client and client TLS (never a secret)',
  })
  credentials!: EndpointCredentialsType | null;
  @Field() createdAt!: Date;
  @Field() updatedAt!: Date;
}

@ObjectType('CreatedDecisionEndpoint', {
  simpleResolvers: true,
  description: 'A new decision endpoint, and its secret shown this once',
})
export class CreatedDecisionEndpointType {
  @Field(() => DecisionEndpointType) endpoint!: DecisionEndpointType;
  @Field({ description: 'whsec_…: verify webhook-signature with it (Standard Webhooks)' }) secret!: string;
}

@InputType('DecisionEndpointInput', { description: 'A decision endpoint; on update, a field left out keeps its value' })
export class DecisionEndpointInputType {
  @Field(() => String, { nullable: true, description: `http or https; ${inWords(BOUNDS.decisionEndpoint.url)}` })
  url?: string | null;
  @Field(() => ID, { nullable: true, description: "One of the company's numbers; null or left out: the company's" })
  phoneNumberId?: string | null;
  @Field(() => Int, {
    nullable: true,
    description: `Milliseconds, ${inWords(BOUNDS.decisionEndpoint.deadlineMs)}; default 2000`,
  })
  deadlineMs?: number | null;
  @Field(() => Boolean, { nullable: true, description: 'Default false' }) hedge?: boolean | null;
  @Field(() => DecisionAction, { nullable: true, description: 'Required on create' }) fallbackAction?: string | null;
  @Field(() => ID, { nullable: true, description: "answer: one of the company's agents; null: the number's own" })
  fallbackAgentId?: string | null;
  @Field(() => String, { nullable: true, description: 'forward: an E.164 number (required then)' })
  fallbackForwardTo?: string | null;
  @Field(() => EndpointCredentialsInputType, {
    nullable: true,
    description: 'OAuth2 client credentials and client TLS; null removes them, left out keeps them',
  })
  credentials?: EndpointCredentialsInputType | null;
}

@ObjectType('CallDecision', { simpleResolvers: true, description: 'How an inbound call was routed' })
export class CallDecisionType {
  @Field(() => DecidedBy) decidedBy!: string;
  @Field(() => DecisionAction) action!: string;
  @Field(() => ID, { nullable: true }) agentId!: number | null;
  @Field(() => String, { nullable: true }) forwardTo!: string | null;
  @Field(() => DecisionFallbackReason, { nullable: true, description: 'Why the fallback decided (null otherwise)' })
  fallbackReason!: string | null;
  @Field(() => String, {
    nullable: true,
    description: "The endpoint's reason for a reject, or in words why its answer was not taken (fallback)",
  })
  reason!: string | null;
  @Field(() => Int, { nullable: true, description: 'From the call arriving to the decision, ms' }) latencyMs!:
    | number
    | null;
}

@ObjectType('AgentTool', {
  simpleResolvers: true,
  description: "A tool an AI agent may call during a call, run by the company's endpoint",
})
export class AgentToolType {
  @Field(() => ID) id!: number;
  @Field(() => ID) agentId!: number;
  @Field({ description: 'As the agent calls it' }) name!: string;
  @Field({ description: 'What the tool does, for the agent' }) description!: string;
  @Field(() => GraphQLJSONObject, { description: 'JSON Schema of its arguments (type object)' })
  parameters!: Record<string, unknown>;
  @Field() url!: string;
  @Field(() => Int, { description: 'From the tool call arriving to the result, ms' }) deadlineMs!: number;
  @Field({ description: 'Put into the conversation when the endpoint does not answer in time' })
  fallbackMessage!: string;
  @Field(() => EndpointBreakerType) breaker!: EndpointBreakerType;
  @Field(() => EndpointCredentialsType, {
    nullable: true,
    description: 'OAuth2 client and client TLS (never a secret)',
  })
  credentials!: EndpointCredentialsType | null;
  @Field() createdAt!: Date;
  @Field() updatedAt!: Date;
}

@ObjectType('EndpointSecret', {
  simpleResolvers: true,
  description: "A decision endpoint's or a tool's signing secret, in the shape of a webhook's (WebhookSecret)",
})
export class EndpointSecretType {
  @Field({ description: 'whsec_…: verify webhook-signature with it (Standard Webhooks)' }) secret!: string;
}

@ObjectType('CreatedAgentTool', { simpleResolvers: true, description: 'A new tool, and its secret shown this once' })
export class CreatedAgentToolType {
  @Field(() => AgentToolType) tool!: AgentToolType;
  @Field({ description: 'whsec_…: verify webhook-signature with it (Standard Webhooks)' }) secret!: string;
}

@InputType('AgentToolInput', { description: 'A tool; on update, a field left out keeps its value' })
export class AgentToolInputType {
  @Field(() => String, { nullable: true, description: 'Letters, digits, _ and -; at most 64; required on create' })
  name?: string | null;
  @Field(() => String, { nullable: true, description: `${inWords(BOUNDS.agentTool.description)}; required on create` })
  description?: string | null;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'JSON Schema of the arguments, type object; required on create',
  })
  parameters?: Record<string, unknown> | null;
  @Field(() => String, {
    nullable: true,
    description: `http or https; ${inWords(BOUNDS.agentTool.url)}; required on create`,
  })
  url?: string | null;
  @Field(() => Int, {
    nullable: true,
    description: `Milliseconds, ${inWords(BOUNDS.agentTool.deadlineMs)}; default 3000`,
  })
  deadlineMs?: number | null;
  @Field(() => String, { nullable: true, description: inWords(BOUNDS.agentTool.fallbackMessage) })
  fallbackMessage?: string | null;
  @Field(() => EndpointCredentialsInputType, {
    nullable: true,
    description: 'OAuth2 client credentials and client TLS; null removes them, left out keeps them',
  })
  credentials?: EndpointCredentialsInputType | null;
}
