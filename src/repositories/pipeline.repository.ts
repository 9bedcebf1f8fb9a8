import { raw } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { type PageWindow, readPage } from '../db/reads.js';
import { Pipeline } from '../entities/pipeline.entity.js';
import { PipelineStage } from '../entities/pipeline-stage.entity.js';
import type { IdCodec } from '../kernel/ids.js';
import { type Listed, listed, ownedEntity } from './common.js';

// A company's pipelines and their stages, through the entities: the one module that knows their tables.

/** Which pipelines a list shows: all, those linked to no CRM location, or those of one location. */
export type PipelineScope = { kind: 'all' } | { kind: 'unsynced' } | { kind: 'location'; crmLocationId: string };

export const pipelineRepository = {
  /** One page of the company's pipelines by name (each with its stage count) and how many there are in all. */
  async page(
    ctx: RequestContext,
    scope: PipelineScope,
    window: PageWindow,
  ): Promise<[Array<Listed<Pipeline, 'id' | 'name' | 'crmLocationId' | 'stagesCount'>>, number]> {
    const params: unknown[] = [await ctx.companyId()];
    let where = 'p.company_id = $1';
    if (scope.kind === 'unsynced') where += ' AND p.crm_location_id IS NULL';
    else if (scope.kind === 'location') where += ` AND p.crm_location_id = $${params.push(scope.crmLocationId)}`;
    const { rows, total } = await readPage<Record<string, unknown>>(
      ctx,
      {
        select:
          'p.id, p.name, p.crm_location_id, ' +
          '(SELECT count(*)::int FROM pipeline_stages s WHERE s.pipeline_id = p.id) AS stages_count',
        from: 'pipelines p',
        where,
        orderBy: 'p.name, p.id',
        params,
      },
      window,
    );
    return [listed(ctx, Pipeline, rows), total];
  },

  /** The company's pipeline by any id form; 404 otherwise. `lock`: locked until the unit of work ends. */
  find(ctx: RequestContext, ids: IdCodec, raw: string, lock = false): Promise<Pipeline> {
    return ownedEntity(ctx, ids, Pipeline, { kind: 'pipeline', what: 'Pipeline', lock }, raw);
  },

  async create(ctx: RequestContext, fields: { name: string; crmLocationId: string | null }): Promise<Pipeline> {
    const pipeline = ctx.em.create(Pipeline, { company: await ctx.companyId(), ...fields });
    await ctx.em.flush();
    return pipeline;
  },

  /** Adds a stage after the pipeline's last; the caller holds the pipeline's lock, so no other adds beside it. */
  async appendStage(ctx: RequestContext, pipeline: Pipeline, name: string): Promise<PipelineStage> {
    const last = await ctx.em.findOne(
      PipelineStage,
      { pipeline },
      { orderBy: { position: 'desc' }, fields: ['position'] },
    );
    const stage = ctx.em.create(PipelineStage, { pipeline, name, position: (last?.position ?? 0) + 1 });
    pipeline.updatedAt = new Date();
    await ctx.em.flush();
    return stage;
  },

  stages(ctx: RequestContext, pipeline: Pipeline): Promise<PipelineStage[]> {
    return ctx.em.find(PipelineStage, { pipeline }, { orderBy: [{ position: 'asc' }, { id: 'asc' }] });
  },

  /** The CRM locations the company's pipelines are linked to, each with how many, by location. */
  async locations(ctx: RequestContext): Promise<Array<{ crmLocationId: string; pipelinesCount: number }>> {
    return ctx.em
      .createQueryBuilder(Pipeline)
      .select(['crmLocationId', raw('cast(count(*) as int) as pipelines_count')])
      .where({ company: await ctx.companyId(), crmLocationId: { $ne: null } })
      .groupBy('crmLocationId')
      .orderBy({ crmLocationId: 'asc' })
      .execute<Array<{ crmLocationId: string; pipelines_count: number }>>('all')
      .then((rows) => rows.map((row) => ({ crmLocationId: row.crmLocationId, pipelinesCount: row.pipelines_count })));
  },
};
