import type { RequestContext } from '../context/request-context.js';
import { toBase64Id, type IdCodec } from '../kernel/ids.js';
import { Rules } from '../kernel/validation.js';
import { pageOf, pageWindow, type Page, type PageArgs } from '../db/reads.js';
import type { Pipeline } from '../entities/pipeline.entity.js';
import type { PipelineStage } from '../entities/pipeline-stage.entity.js';
import { pipelineRepository, type PipelineScope } from '../repositories/pipeline.repository.js';
import type { Listed } from '../repositories/common.js';
import { BOUNDS } from '../kernel/bounds.js';

export const PIPELINE_LIMITS = { defaultPerPage: 15, maxPerPage: 30 };

/** A pipeline as the GraphQL Pipeline type serves it. */
export interface PipelineRecord {
  id: string;
  encryptedId: string;
  name: string;
  stagesCount: number;
  linkedToCrm: boolean;
  crmLocationId: string | null;
}

/** A stage as the GraphQL PipelineStage type serves it. */
export interface StageRecord {
  id: string;
  stageName: string;
  pipelineId: string;
  position: number;
}

const stageRecord = (stage: PipelineStage): StageRecord => ({
  id: toBase64Id(stage.id),
  stageName: stage.name,
  pipelineId: toBase64Id(stage.pipeline.id),
  position: stage.position,
});

export interface PipelineListArgs extends PageArgs {
  /** `all` (default), `unsynced` (no CRM location) or a CRM location id. */
  crmLocationId?: string | null;
}

export interface CrmLocation {
  crmLocationId: string;
  pipelinesCount: number;
}

export class PipelineService {
  constructor(private readonly ids: IdCodec) {}

  private record(pipeline: Listed<Pipeline, 'id' | 'name' | 'crmLocationId' | 'stagesCount'>): PipelineRecord {
    return {
      id: toBase64Id(pipeline.id),
      encryptedId: this.ids.encrypt('pipeline', pipeline.id),
      name: pipeline.name,
      stagesCount: pipeline.stagesCount ?? 0,
      linkedToCrm: !!pipeline.crmLocationId,
      crmLocationId: pipeline.crmLocationId ?? null,
    };
  }

  async list(ctx: RequestContext, args: PipelineListArgs): Promise<Page<PipelineRecord>> {
    const window = pageWindow(args, PIPELINE_LIMITS);
    const location = args.crmLocationId?.trim() || 'all';
    const scope: PipelineScope =
      location === 'all' || location === 'unsynced'
        ? { kind: location }
        : { kind: 'location', crmLocationId: location };
    const [pipelines, total] = await pipelineRepository.page(ctx, scope, window);
    return pageOf(
      pipelines.map((pipeline) => this.record(pipeline)),
      total,
      window,
    );
  }

  async create(ctx: RequestContext, input: { name: string; crmLocationId?: string | null }): Promise<PipelineRecord> {
    new Rules()
      .required('name', input.name)
      .maxChars('name', input.name, BOUNDS.pipeline.name.maxLength)
      .maxChars('crm_location_id', input.crmLocationId, BOUNDS.pipeline.crmLocationId.maxLength)
      .check();
    const pipeline = await pipelineRepository.create(ctx, {
      name: input.name.trim(),
      crmLocationId: input.crmLocationId?.trim() || null,
    });
    return this.record(pipeline);
  }

  /** Adds a stage at the end of the pipeline. */
  async addStage(ctx: RequestContext, rawPipelineId: string, stageName: string): Promise<StageRecord> {
    // The pipeline is locked until this unit of work commits, so two concurrent additions never read the same last
    // position (the deferred unique position backs this up).
    const pipeline = await pipelineRepository.find(ctx, this.ids, rawPipelineId, true);
    new Rules()
      .required('stageName', stageName)
      .maxChars('stageName', stageName, BOUNDS.pipeline.stageName.maxLength)
      .check();
    return stageRecord(await pipelineRepository.appendStage(ctx, pipeline, stageName.trim()));
  }

  async stages(ctx: RequestContext, rawPipelineId: string): Promise<StageRecord[]> {
    const pipeline = await pipelineRepository.find(ctx, this.ids, rawPipelineId);
    return (await pipelineRepository.stages(ctx, pipeline)).map(stageRecord);
  }

  locations(ctx: RequestContext): Promise<CrmLocation[]> {
    return pipelineRepository.locations(ctx);
  }
}
