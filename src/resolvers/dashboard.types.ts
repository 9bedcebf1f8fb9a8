import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { CursorPageType } from './pagination.types.js';
import { CallStatus, DateRange, Direction, LocalPresence, Sentiment } from './enums.js';
import { BOUNDS, inWords } from '../kernel/bounds.js';

@ObjectType('CallNumbers', { simpleResolvers: true })
export class CallNumbersType {
  @Field({ description: 'Caller number' }) from!: string;
  @Field({ description: 'Called number' }) to!: string;
}

/**
 * One call, whichever field gives it: a row of the appointment list, the
 * call's details, a booking, an analysis. One typename and id, so a client's
 * normalized cache keeps one entry per call. The list reads the row's own
 * columns; the other fields of a list row are read when asked for, for the
 * whole page at once (CallFieldsResolver).
 */
@ObjectType('Call', { simpleResolvers: true, description: 'A call: a row of the AI dashboard, or its details' })
export class CallType {
  @Field(() => Int) id!: number;
  @Field({ description: 'When the call started, "YYYY-MM-DD HH:mm:ss" in the company time zone' })
  callDatetime!: string;
  @Field() startedAt!: Date;
  @Field(() => String, { nullable: true }) agentName!: string | null;
  @Field(() => CallNumbersType) numbers!: CallNumbersType;
  @Field(() => Int, { description: 'Seconds' }) duration!: number;
  @Field(() => String, {
    nullable: true,
    description:
      'The appointment the call booked, "YYYY-MM-DD HH:mm:ss" in the company time zone; never null in the appointment list',
  })
  appointment!: string | null;
  @Field(() => Date, { nullable: true, description: 'Never null in the appointment list' }) appointmentAt!: Date | null;
  @Field(() => CallStatus) status!: string;
  @Field(() => Direction) direction!: string;
  @Field(() => Sentiment, { nullable: true, description: 'Null until analysed' }) sentiment!: string | null;
  @Field() recordingAvailable!: boolean;
}

@ObjectType('AppointmentCallPage', { simpleResolvers: true })
export class AppointmentCallPageType extends CursorPageType(CallType) {}

@ObjectType('SentimentCounts', { simpleResolvers: true })
export class SentimentCountsType {
  @Field(() => ID, { description: "The summary's id: the counts of one summary" }) id!: string;
  @Field(() => Int) positive!: number;
  @Field(() => Int) neutral!: number;
  @Field(() => Int) negative!: number;
  @Field(() => Int) unknown!: number;
}

@ObjectType('DashboardSummary', { simpleResolvers: true })
export class DashboardSummaryType {
  @Field(() => ID, {
    description:
      'What the summary is of (the company, the interval, the agent, the search), opaque: the same for the same ' +
      'question, so a normalized cache (Apollo Client) merges two queries of it',
  })
  id!: string;
  @Field(() => Int) calls!: number;
  @Field(() => Int, { description: 'Completed calls with talk time' }) answered!: number;
  @Field(() => Int) appointments!: number;
  @Field(() => Int, { description: 'Seconds' }) averageDuration!: number;
  @Field(() => SentimentCountsType) sentiment!: SentimentCountsType;
  @Field({ description: 'Start of the interval (inclusive)' }) from!: Date;
  @Field({ description: 'End of the interval (exclusive)' }) to!: Date;
  @Field() timeZone!: string;
}

@ObjectType('CallContact', { simpleResolvers: true })
export class CallContactType {
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String, { nullable: true }) email!: string | null;
  @Field({ description: 'The contact side of the call' }) phone!: string;
}

@InputType('CallAnalysisInput', { description: 'A post-call analysis; a field left out keeps its value' })
export class CallAnalysisInput {
  @Field(() => String, { nullable: true, description: inWords(BOUNDS.analysis.summary) }) summary?: string | null;
  @Field(() => Sentiment, { nullable: true }) sentiment?: string | null;
  @Field(() => String, { nullable: true, description: inWords(BOUNDS.analysis.disposition) }) disposition?:
    | string
    | null;
  @Field(() => Boolean, { nullable: true }) successful?: boolean | null;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description:
      'At most 50 fields named in lower case (a-z, 0-9, _), each a string of at most 1000 characters, a ' +
      'number, a boolean or null; replaces the fields the call had',
  })
  customAnalysis?: Record<string, unknown> | null;
  @Field(() => String, { nullable: true, description: 'An http or https URL' }) recordingUrl?: string | null;
}

@ObjectType('LocalPresenceSetting', { simpleResolvers: true })
export class LocalPresenceType {
  @Field(() => LocalPresence) newValue!: string;
}

@InputType({
  description: 'date_range, or start_date and end_date (Y-m-d, inclusive); agent; company (an agency may name a child)',
})
export class DashboardFilterInput {
  @Field(() => DateRange, { nullable: true, description: 'Today by default' }) dateRange?: string | null;
  @Field(() => String, { nullable: true }) startDate?: string | null;
  @Field(() => String, { nullable: true }) endDate?: string | null;
  @Field(() => String, { nullable: true, description: 'All (default) or an agent id' }) agentId?: string | null;
  @Field(() => Int, { nullable: true }) companyId?: number | null;
  @Field(() => String, { nullable: true }) search?: string | null;
}
