import { AFTER_DESCRIPTION } from './pagination.types.js';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { WorkflowService } from '../services/workflow.service.js';
import type { RequestContext } from '../context/request-context.js';
import { WorkflowStatus, type TriggerConfig } from '../kernel/workflow.js';
import { ACTIONS, TRIGGERS } from '../workflows/catalog.js';
import {
  CatalogEntryType,
  CreateWorkflowInput,
  WorkflowFolderType,
  WorkflowPageType,
  WorkflowType,
} from './workflow.types.js';

@Resolver()
export class WorkflowResolver {
  constructor(private readonly workflowService: WorkflowService) {}

  @Authorized()
  @Mutation(() => WorkflowType, { description: 'Create a draft workflow; every field is optional' })
  async createWorkflow(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateWorkflowInput, { nullable: true }) input: CreateWorkflowInput | null,
  ) {
    return this.workflowService.create(ctx, input ?? {});
  }

  @Authorized()
  @Mutation(() => WorkflowType, { description: 'Set the status only' })
  async updateWorkflowStatus(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('status', () => WorkflowStatus) status: WorkflowStatus,
  ) {
    return this.workflowService.setStatus(ctx, id, status);
  }

  @Authorized()
  @Mutation(() => WorkflowType, {
    description: 'Move into a folder; the base64 of 0 ("MA==") moves it out of every folder',
  })
  async moveWorkflowToFolder(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('folderId', () => ID) folderId: string,
  ) {
    return this.workflowService.moveToFolder(ctx, id, folderId);
  }

  @Authorized()
  @Mutation(() => [WorkflowFolderType], {
    description: 'The listed folders first, in order (the first gets 1); atomic',
  })
  async reorderWorkflowFolders(@Ctx() ctx: RequestContext, @Arg('folderIds', () => [ID]) folderIds: string[]) {
    await this.workflowService.reorderFolders(ctx, folderIds);
    return this.workflowService.folders(ctx);
  }

  @Authorized('view-workflows')
  @Query(() => WorkflowPageType, { description: 'Workflows of the company, newest first' })
  async workflows(
    @Ctx() ctx: RequestContext,
    @Arg('folderId', () => ID, { nullable: true, description: 'A folder, or "MA==" for uncategorized' }) folderId:
      | string
      | null,
    @Arg('status', () => WorkflowStatus, { nullable: true }) status: WorkflowStatus | null,
    @Arg('search', () => String, { nullable: true }) search: string | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after: string | null,
  ): Promise<WorkflowPageType> {
    return this.workflowService.list(ctx, { folderId, status, search, page, perPage, after });
  }

  @Authorized('view-workflows')
  @Query(() => [WorkflowFolderType], { description: 'Folders in display order' })
  async workflowFolders(@Ctx() ctx: RequestContext) {
    return this.workflowService.folders(ctx);
  }

  @Authorized('edit-workflows')
  @Mutation(() => WorkflowFolderType, { description: 'Create a folder at the end of the order' })
  async createWorkflowFolder(@Ctx() ctx: RequestContext, @Arg('name') name: string) {
    return this.workflowService.createFolder(ctx, name);
  }

  @Authorized('view-workflows')
  @Query(() => WorkflowType, { description: 'A workflow by its builder id, with its graph' })
  async workflowBuilder(@Ctx() ctx: RequestContext, @Arg('builderId', () => ID) builderId: string) {
    return this.workflowService.findByBuilder(ctx, builderId);
  }

  @Authorized('edit-workflows')
  @Mutation(() => WorkflowType, { description: 'Save the builder graph (validated against the catalogs)' })
  async saveWorkflowBuilder(
    @Ctx() ctx: RequestContext,
    @Arg('builderId', () => ID) builderId: string,
    @Arg('triggerConfig', () => GraphQLJSONObject, { nullable: true }) triggerConfig: TriggerConfig | null,
  ) {
    return this.workflowService.saveGraph(ctx, builderId, triggerConfig);
  }

  @Authorized()
  @Query(() => [CatalogEntryType], { description: 'Trigger types: every webhook event' })
  workflowTriggers() {
    return TRIGGERS;
  }

  @Authorized()
  @Query(() => [CatalogEntryType], { description: 'Action types' })
  workflowActions() {
    return ACTIONS;
  }
}
