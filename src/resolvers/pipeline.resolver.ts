import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { PipelineService } from '../services/pipeline.service.js';
import type { RequestContext } from '../context/request-context.js';
import {
  CreatePipelineInput,
  CrmLocationType,
  PipelinePageType,
  PipelineStageType,
  PipelineType,
} from './pipeline.types.js';

@Resolver()
export class PipelineResolver {
  constructor(private readonly pipelineService: PipelineService) {}

  @Authorized()
  @Query(() => PipelinePageType, { description: 'Pipelines of the company, ordered by name' })
  async pipelines(
    @Ctx() ctx: RequestContext,
    @Arg('crmLocationId', () => String, {
      nullable: true,
      description: 'all (default), unsynced, or a CRM location id',
    })
    crmLocationId: string | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true, description: 'Default 15, at most 30' }) perPage: number | null,
  ): Promise<PipelinePageType> {
    return this.pipelineService.list(ctx, { crmLocationId, page, perPage });
  }

  @Authorized('edit-pipelines')
  @Mutation(() => PipelineType)
  async createPipeline(@Ctx() ctx: RequestContext, @Arg('input') input: CreatePipelineInput): Promise<PipelineType> {
    return this.pipelineService.create(ctx, input);
  }

  @Authorized()
  @Mutation(() => PipelineStageType, { description: 'Add a stage at the end of the pipeline' })
  async addPipelineStage(
    @Ctx() ctx: RequestContext,
    @Arg('pipelineId', () => ID) pipelineId: string,
    @Arg('stageName') stageName: string,
  ): Promise<PipelineStageType> {
    return this.pipelineService.addStage(ctx, pipelineId, stageName);
  }

  @Authorized('view-pipelines')
  @Query(() => [PipelineStageType], { description: 'Stages of a pipeline, in order' })
  async pipelineStages(
    @Ctx() ctx: RequestContext,
    @Arg('pipelineId', () => ID) pipelineId: string,
  ): Promise<PipelineStageType[]> {
    return this.pipelineService.stages(ctx, pipelineId);
  }

  @Authorized('view-pipelines')
  @Query(() => [CrmLocationType], { description: 'CRM locations that pipelines are linked to' })
  pipelineLocations(@Ctx() ctx: RequestContext) {
    return this.pipelineService.locations(ctx);
  }
}
