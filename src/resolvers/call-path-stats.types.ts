import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { EndpointBreakerType } from './decision.types.js';
import { StatsBucket } from './enums.js';

// Endpoint health for the call path (docs/call-routing.md): a decision endpoint's or an agent tool's record over time.

const TIME = 'percentile of the time Switchboard added (from the call’s arrival to the decision, less the endpoint’s)';
const OWN = 'percentile of the endpoint’s own time (request sent to answer read)';

@ObjectType('CallPathFigures', { description: 'What an endpoint was asked in a span: by outcome, with its times (ms)' })
export class CallPathFiguresType {
  @Field(() => Int, { description: 'Every question, whatever its outcome' }) questions!: number;
  @Field(() => Int, { description: 'Answered within the deadline and taken' }) answered!: number;
  @Field(() => Int, { description: 'Fallback: no answer within the deadline' }) timeout!: number;
  @Field(() => Int, { description: 'Fallback: the endpoint answered with an error status' }) error!: number;
  @Field(() => Int, { description: 'Fallback: the answer could not be taken' }) invalid!: number;
  @Field(() => Int, { description: 'Fallback: the connection failed or the address is refused' }) unreachable!: number;
  @Field(() => Int, { description: 'Fallback at once: the circuit breaker was open' }) breakerOpen!: number;
  @Field(() => Int, { description: 'Questions asked a second time (the hedge)' }) hedged!: number;
  @Field(() => Int, { description: 'Times the circuit breaker opened' }) breakerOpenings!: number;
  @Field(() => Float, { nullable: true, description: 'answered / questions, from 0 to 1; null without questions' })
  answerRate!: number | null;
  @Field(() => Int, { nullable: true, description: `50th ${TIME}` }) addedP50Ms!: number | null;
  @Field(() => Int, { nullable: true, description: `99th ${TIME}` }) addedP99Ms!: number | null;
  @Field(() => Int, { nullable: true, description: `50th ${OWN}` }) endpointP50Ms!: number | null;
  @Field(() => Int, { nullable: true, description: `99th ${OWN}` }) endpointP99Ms!: number | null;
}

@ObjectType('CallPathPoint')
export class CallPathPointType extends CallPathFiguresType {
  @Field({ description: "When the bucket starts (a minute, an hour or a day of the company's zone)" }) at!: Date;
}

@ObjectType('CallPathStats', { description: "A decision endpoint's or an agent tool's record over time" })
export class CallPathStatsType {
  @Field(() => ID) endpointId!: number;
  @Field(() => StatsBucket) bucket!: string;
  @Field({ description: 'The first bucket’s start' }) from!: Date;
  @Field({ description: 'The last bucket’s end' }) to!: Date;
  @Field({ description: "The company's zone, which hours and days are of" }) timeZone!: string;
  @Field(() => CallPathFiguresType) totals!: CallPathFiguresType;
  @Field(() => CallPathFiguresType, { description: "The company's endpoints of the same kind, same window" })
  companyTotals!: CallPathFiguresType;
  @Field(() => EndpointBreakerType, { description: 'The circuit breaker now, as the process answering sees it' })
  breaker!: EndpointBreakerType;
  @Field(() => [CallPathPointType], { description: 'Every bucket of the window, oldest first, empty ones too' })
  points!: CallPathPointType[];
}
