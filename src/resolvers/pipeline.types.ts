import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { PageType } from './pagination.types.js';

@ObjectType('Pipeline', { simpleResolvers: true })
export class PipelineType {
  @Field(() => ID, { description: 'Base64 id' }) id!: string;
  @Field() encryptedId!: string;
  @Field() name!: string;
  @Field(() => Int) stagesCount!: number;
  @Field({ description: 'Whether the pipeline is linked to an external CRM location' }) linkedToCrm!: boolean;
  @Field(() => String, { nullable: true }) crmLocationId!: string | null;
}

@ObjectType('PipelinePage', { simpleResolvers: true })
export class PipelinePageType extends PageType(PipelineType) {}

@ObjectType('PipelineStage', { simpleResolvers: true })
export class PipelineStageType {
  @Field(() => ID, { description: 'Base64 id' }) id!: string;
  @Field() stageName!: string;
  @Field(() => ID, { description: 'Base64 id of the pipeline' }) pipelineId!: string;
  @Field(() => Int, { description: '1 is first' }) position!: number;
}

@ObjectType('CrmLocation', { simpleResolvers: true })
export class CrmLocationType {
  @Field() crmLocationId!: string;
  @Field(() => Int) pipelinesCount!: number;
}

@InputType()
export class CreatePipelineInput {
  @Field() name!: string;
  @Field(() => String, { nullable: true }) crmLocationId?: string | null;
}
