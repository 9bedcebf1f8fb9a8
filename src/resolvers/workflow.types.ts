import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { WorkflowStatus, type TriggerConfig } from '../kernel/workflow.js';
import { CursorPageType } from './pagination.types.js';

registerEnumType(WorkflowStatus, { name: 'WorkflowStatus' });

@ObjectType('Workflow', { simpleResolvers: true })
export class WorkflowType {
  @Field(() => ID, { description: 'Base64 id' }) id!: string;
  @Field(() => ID, { description: 'Base64 builder id' }) builderId!: string;
  @Field() encryptedId!: string;
  @Field() name!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => WorkflowStatus) status!: WorkflowStatus;
  @Field({ description: 'Path of the builder route for this workflow' }) builderEndpoint!: string;
  @Field(() => ID, { nullable: true, description: 'Base64 folder id; null when uncategorized' }) folderId!:
    | string
    | null;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'The graph: { nodes: [{ id, kind, type, config }], edges: [{ from, to }] }',
  })
  triggerConfig!: TriggerConfig | null;
  @Field() createdAt!: Date;
  @Field() updatedAt!: Date;
}

@ObjectType('WorkflowPage', { simpleResolvers: true })
export class WorkflowPageType extends CursorPageType(WorkflowType) {}

@ObjectType('WorkflowFolder', { simpleResolvers: true })
export class WorkflowFolderType {
  @Field(() => ID, { description: 'Base64 id' }) id!: string;
  @Field() name!: string;
  @Field(() => Int, { description: '1 is first' }) sortOrder!: number;
  @Field(() => Int) workflowsCount!: number;
}

@ObjectType('CatalogEntry', { simpleResolvers: true })
export class CatalogEntryType {
  @Field() type!: string;
  @Field() name!: string;
  @Field() category!: string;
  @Field() description!: string;
  @Field(() => GraphQLJSONObject, {
    description: 'Settings a node of this type takes: name -> { type, required, enum, min, max }',
  })
  config!: Record<string, unknown>;
}

@InputType()
export class CreateWorkflowInput {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) triggerConfig?: TriggerConfig | null;
}
