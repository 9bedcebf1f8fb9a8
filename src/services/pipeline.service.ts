import type { RequestContext } from '../context.js';
import type { IdCodec } from '../ids.js';
import { Pipeline, PipelineStage } from '../entities/index.js';
import { Rules } from '../validation.js';
import { findOwned } from '../db/lookup.js';
import { findPage, pageWindow, type Page, type PageArgs } from '../db/pagination.js';

export const PIPELINE_LIMITS = { defaultPerPage: 15, maxPerPage: 30 };
export const NAME_MAX = 255;

export interface PipelineRow {
  pipeline: Pipeline;
  stagesCount: number;
}

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

  async list(ctx: RequestContext, args: PipelineListArgs): Promise<Page<PipelineRow>> {
    const window = pageWindow(args, PIPELINE_LIMITS);
    const where: Record<string, unknown> = { company: await ctx.companyId() };
    const location = args.crmLocationId?.trim() || 'all';
    if (location === 'unsynced') where.crmLocationId = null;
    else if (location !== 'all') where.crmLocationId = location;
    const page = await findPage(ctx.em, Pipeline, where, window, { orderBy: { name: 'asc', id: 'asc' } });
    const counts = await this.stageCounts(ctx, page.records.map((p) => p.id));
    return { ...page, records: page.records.map((pipeline) => ({ pipeline, stagesCount: counts.get(pipeline.id) ?? 0 })) };
  }

  find(ctx: RequestContext, rawId: string): Promise<Pipeline> {
    return findOwned(ctx, this.ids, Pipeline, rawId, 'pipeline', 'Pipeline');
  }

  async create(ctx: RequestContext, input: { name: string; crmLocationId?: string | null }): Promise<PipelineRow> {
    new Rules().required('name', input.name).maxChars('name', input.name, NAME_MAX).maxChars('crm_location_id', input.crmLocationId, 255).check();
    const pipeline = ctx.em.create(Pipeline, {
      company: await ctx.companyId(),
      name: input.name.trim(),
      crmLocationId: input.crmLocationId?.trim() || null,
    });
    await ctx.em.flush();
    return { pipeline, stagesCount: 0 };
  }

  /** Adds a stage at the end of the pipeline. */
  async addStage(ctx: RequestContext, rawPipelineId: string, stageName: string): Promise<PipelineStage> {
    const pipeline = await this.find(ctx, rawPipelineId);
    new Rules().required('stage_name', stageName).maxChars('stage_name', stageName, NAME_MAX).check();
    // Touching the pipeline row locks it until this unit of work commits, so two
    // concurrent additions never read the same last position (a unique
    // constraint on (pipeline_id, position) backs this up).
    await ctx.sql('UPDATE pipelines SET updated_at = now() WHERE id = ?', [pipeline.id]);
    const [{ last }] = await ctx.sql<{ last: number }>(
      'SELECT COALESCE(MAX(position), 0)::int AS last FROM pipeline_stages WHERE pipeline_id = ?',
      [pipeline.id],
    );
    const stage = ctx.em.create(PipelineStage, { pipeline, name: stageName.trim(), position: last + 1 });
    await ctx.em.flush();
    return stage;
  }

  async stages(ctx: RequestContext, rawPipelineId: string): Promise<PipelineStage[]> {
    const pipeline = await this.find(ctx, rawPipelineId);
    return ctx.em.find(PipelineStage, { pipeline }, { orderBy: { position: 'asc', id: 'asc' } });
  }

  async locations(ctx: RequestContext): Promise<CrmLocation[]> {
    const rows = await ctx.sql<{ crm_location_id: string; pipelines_count: number }>(
      `SELECT crm_location_id, count(*)::int AS pipelines_count FROM pipelines
       WHERE company_id = ? AND crm_location_id IS NOT NULL GROUP BY crm_location_id ORDER BY crm_location_id`,
      [await ctx.companyId()],
    );
    return rows.map((r) => ({ crmLocationId: r.crm_location_id, pipelinesCount: r.pipelines_count }));
  }

  private async stageCounts(ctx: RequestContext, ids: number[]): Promise<Map<number, number>> {
    if (ids.length === 0) return new Map();
    const rows = await ctx.sql<{ pipeline_id: number; n: number }>(
      'SELECT pipeline_id, count(*)::int AS n FROM pipeline_stages WHERE pipeline_id IN (?) GROUP BY pipeline_id',
      [ids],
    );
    return new Map(rows.map((r) => [r.pipeline_id, r.n]));
  }
}
