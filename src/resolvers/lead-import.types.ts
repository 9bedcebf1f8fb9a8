import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, InputType, Int, ObjectType } from 'type-graphql';

// A campaign's leads given in bulk (docs/dialer.md).

@InputType('CampaignLeadInput', { description: 'A lead of a campaign; its contact is made when its number is new' })
export class CampaignLeadInput {
  @Field(() => String, { description: 'E.164' }) phoneNumber!: string;
  @Field(() => String, { nullable: true, description: 'The campaign has a lead once per key; default: its number' })
  key?: string | null;
  @Field(() => String, { nullable: true }) firstName?: string | null;
  @Field(() => String, { nullable: true }) lastName?: string | null;
  @Field(() => String, { nullable: true }) email?: string | null;
  @Field(() => String, { nullable: true, description: "IANA zone of its calling hours; default: its number's" })
  timeZone?: string | null;
  @Field(() => String, { nullable: true, description: 'Where the lead came from' }) source?: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'What its agent is told: strings, numbers, booleans' })
  variables?: Record<string, unknown> | null;
}

@ObjectType('LeadRowError', { simpleResolvers: true, description: 'A bad row of an import, and why' })
export class LeadRowErrorType {
  @Field(() => Int, { nullable: true, description: 'Its place in the list given (JSON), from 0' }) index!:
    | number
    | null;
  @Field(() => Int, { nullable: true, description: 'Its line in the file (CSV), the header being line 1' })
  line!: number | null;
  @Field(() => String, { nullable: true, description: 'The field or column' }) column!: string | null;
  @Field(() => String, { nullable: true, description: 'Its value, as given' }) value!: string | null;
  @Field({ description: 'What is wrong, and what is accepted' }) message!: string;
}

@ObjectType('LeadImport', { simpleResolvers: true, description: "What an import did to a campaign's leads" })
export class LeadImportType {
  @Field(() => Int) campaignId!: number;
  @Field(() => Int, { description: 'Leads added' }) added!: number;
  @Field(() => Int, { description: 'Good rows whose key the campaign had already' }) duplicates!: number;
  @Field(() => Int, { description: 'Bad rows, each in errors' }) rejected!: number;
  @Field(() => Int, { description: "The campaign's leads now" }) leads!: number;
  @Field(() => [LeadRowErrorType]) errors!: LeadRowErrorType[];
}
