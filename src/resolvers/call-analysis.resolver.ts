import { Arg, Authorized, Ctx, Field, InputType, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import type { AnalysisField, CallAnalysisService } from '../services/call-analysis.service.js';
import { BOUNDS, inWords } from '../kernel/bounds.js';
import { AnalysisFieldType } from './enums.js';

// The company's post-call analysis fields: what `customAnalysis` may hold
// once any are declared, each with its type (checked on every analysis,
// from the API or the provider).

@ObjectType('CallAnalysisField', { simpleResolvers: true, description: "A field of the company's post-call analysis" })
export class CallAnalysisFieldType {
  @Field({ description: 'Lower-case letters, digits and underscores, starting with a letter' }) name!: string;
  @Field(() => AnalysisFieldType) type!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => [String], { nullable: true, description: 'The values a choice field takes' }) choices!: string[] | null;
}

@InputType('CallAnalysisFieldInput')
export class CallAnalysisFieldInput {
  @Field({ description: 'Lower-case letters, digits and underscores, starting with a letter; at most 64' })
  name!: string;
  @Field(() => AnalysisFieldType, { description: 'What its values are; a choice field lists its choices' })
  type!: string;
  @Field(() => String, { nullable: true, description: inWords(BOUNDS.analysis.fieldDescription) }) description?:
    | string
    | null;
  @Field(() => [String], {
    nullable: true,
    description: `A choice field: at least one value; ${inWords(BOUNDS.analysis.choices).toLowerCase()}`,
  })
  choices?: string[] | null;
}

@Resolver()
export class CallAnalysisResolver {
  constructor(private readonly analyses: CallAnalysisService) {}

  @Authorized('view-ai-dashboard')
  @Query(() => [CallAnalysisFieldType], {
    description: "The company's post-call analysis fields; none: customAnalysis takes any field",
  })
  callAnalysisFields(@Ctx() ctx: RequestContext): Promise<AnalysisField[]> {
    return this.analyses.fields(ctx);
  }

  @Authorized('analyze-calls')
  @Mutation(() => [CallAnalysisFieldType], {
    description: "Replaces the company's post-call analysis fields (an empty list allows any field again)",
  })
  setCallAnalysisFields(
    @Ctx() ctx: RequestContext,
    @Arg('fields', () => [CallAnalysisFieldInput]) fields: CallAnalysisFieldInput[],
  ): Promise<AnalysisField[]> {
    return this.analyses.setFields(ctx, fields as AnalysisField[]);
  }
}
