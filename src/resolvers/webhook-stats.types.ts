import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { StatsBucket } from './enums.js';

// An endpoint's record over time (docs/webhooks.md, "Endpoint health") as GraphQL serves it.

@ObjectType('WebhookStatsFigures', {
  simpleResolvers: true,
  description: 'Attempts by outcome, failed deliveries, the success rate and answer times of a span of time',
})
export class StatsFiguresType {
  @Field(() => Int, { description: 'Every attempt, whatever its outcome' }) attempts!: number;
  @Field(() => Int, { description: 'A 2xx answer, or a broker that took the message' }) success!: number;
  @Field(() => Int, { description: 'Another answer below 500 (1xx, 3xx, 4xx)' }) clientError!: number;
  @Field(() => Int, { description: 'A 5xx answer' }) serverError!: number;
  @Field(() => Int, { description: 'No answer within the timeout' }) timeout!: number;
  @Field(() => Int, { description: 'The connection failed: refused, reset, DNS, TLS' }) network!: number;
  @Field(() => Int, { description: 'The broker refused the message' }) brokerRefused!: number;
  @Field(() => Int, { description: 'The attempt never finished: its worker stopped' }) interrupted!: number;
  @Field(() => Int, { description: 'Deliveries whose last attempt failed' }) failed!: number;
  @Field(() => Float, { nullable: true, description: 'success / attempts, from 0 to 1; null without attempts' })
  successRate!: number | null;
  @Field(() => Int, {
    nullable: true,
    description: 'Median answer time, ms (the upper bound of its histogram slot); null without attempts',
  })
  p50Ms!: number | null;
  @Field(() => Int, { nullable: true, description: '95th percentile answer time, ms' }) p95Ms!: number | null;
  @Field(() => Int, { nullable: true, description: '99th percentile answer time, ms' }) p99Ms!: number | null;
}

@ObjectType('WebhookStatsPoint', { simpleResolvers: true, description: 'One bucket of the record' })
export class StatsPointType extends StatsFiguresType {
  @Field({ description: "When the bucket starts (a minute, an hour or a day of the company's zone)" }) at!: Date;
}

@ObjectType('WebhookStats', { simpleResolvers: true, description: "An endpoint's record over time" })
export class WebhookStatsType {
  @Field(() => ID, { nullable: true, description: "The webhook; null for all the company's webhooks" })
  webhookId!: number | null;
  @Field(() => StatsBucket) bucket!: string;
  @Field({ description: 'The first bucket’s start' }) from!: Date;
  @Field({ description: 'The last bucket’s end' }) to!: Date;
  @Field({ description: "The company's zone, which hours and days are of" }) timeZone!: string;
  @Field(() => StatsFiguresType) totals!: StatsFiguresType;
  @Field(() => StatsFiguresType, { nullable: true, description: "Beside a webhook's: the company's, same window" })
  companyTotals!: StatsFiguresType | null;
  @Field(() => Int, { nullable: true, description: "A webhook's deliveries waiting for an attempt now" })
  waiting!: number | null;
  @Field(() => [StatsPointType], { description: 'Every bucket of the window, oldest first, empty ones too' })
  points!: StatsPointType[];
}
