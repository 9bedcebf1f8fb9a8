import type { RequestContext } from '../context/request-context.js';
import { toBase64Id, type IdCodec } from '../kernel/ids.js';
import { Rules } from '../kernel/validation.js';
import { ownedRow } from '../db/lookup.js';
import { pageOf, pageWindow, readPage, type Page, type PageArgs } from '../db/reads.js';
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

interface PipelineRow {
  id: number;
  name: string;
  crm_location_id: string | null;
}

interface StageRow {
  id: number;
  pipeline_id: number;
  name: string;
  position: number;
}

const STAGE_COLUMNS = 'id, pipeline_id, name, position';

const stageRecord = (stage: StageRow): StageRecord => ({
  id: toBase64Id(stage.id),
  stageName: stage.name,
  pipelineId: toBase64Id(stage.pipeline_id),
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

  private record(pipeline: PipelineRow, stagesCount: number): PipelineRecord {
    return {
      id: toBase64Id(pipeline.id),
      encryptedId: this.ids.encrypt('pipeline', pipeline.id),
      name: pipeline.name,
      stagesCount,
      linkedToCrm: !!pipeline.crm_location_id,
      crmLocationId: pipeline.crm_location_id ?? null,
    };
  }

  async list(ctx: RequestContext, args: PipelineListArgs): Promise<Page<PipelineRecord>> {
    const window = pageWindow(args, PIPELINE_LIMITS);
    const params: unknown[] = [await ctx.companyId()];
    const location = args.crmLocationId?.trim() || 'all';
    let where = 'company_id = $1';
    if (location === 'unsynced') where += ' AND crm_location_id IS NULL';
    else if (location !== 'all') where += ` AND crm_location_id = $${params.push(location)}`;
    const { rows, total } = await readPage<PipelineRow>(
      ctx,
      { select: 'id, name, crm_location_id', from: 'pipelines', where, orderBy: 'name, id', params },
      window,
    );
    const counts = await this.stageCounts(
      ctx,
      rows.map((p) => p.id),
    );
    return pageOf(
      rows.map((pipeline) => this.record(pipeline, counts.get(pipeline.id) ?? 0)),
      total,
      window,
    );
  }

  async find(ctx: RequestContext, rawId: string): Promise<PipelineRow> {
    return ownedRow<PipelineRow>(
      ctx,
      this.ids,
      { table: 'pipelines', columns: 'id, name, crm_location_id', kind: 'pipeline', what: 'Pipeline' },
      rawId,
    );
  }

  async create(ctx: RequestContext, input: { name: string; crmLocationId?: string | null }): Promise<PipelineRecord> {
    new Rules()
      .required('name', input.name)
      .maxChars('name', input.name, BOUNDS.pipeline.name.maxLength)
      .maxChars('crm_location_id', input.crmLocationId, BOUNDS.pipeline.crmLocationId.maxLength)
      .check();
    const now = new Date();
    const [pipeline] = await ctx.sql<PipelineRow>(
      `INSERT INTO pipelines (company_id, name, crm_location_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
       RETURNING id, name, crm_location_id`,
      [await ctx.companyId(), input.name.trim(), input.crmLocationId?.trim() || null, now],
    );
    return this.record(pipeline, 0);
  }

  /** Adds a stage at the end of the pipeline. */
  async addStage(ctx: RequestContext, rawPipelineId: string, stageName: string): Promise<StageRecord> {
    const pipeline = await this.find(ctx, rawPipelineId);
    new Rules()
      .required('stageName', stageName)
      .maxChars('stageName', stageName, BOUNDS.pipeline.stageName.maxLength)
      .check();
    // Touching the pipeline row locks it until this unit of work commits, so two
    // concurrent additions never read the same last position (a unique
    // constraint on (pipeline_id, position) backs this up).
    await ctx.sql('UPDATE pipelines SET updated_at = now() WHERE id = $1', [pipeline.id]);
    const [{ last }] = await ctx.sql<{ last: number }>(
      'SELECT COALESCE(MAX(position), 0)::int AS last FROM pipeline_stages WHERE pipeline_id = $1',
      [pipeline.id],
    );
    const now = new Date();
    const [stage] = await ctx.sql<StageRow>(
      `INSERT INTO pipeline_stages (pipeline_id, name, position, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
       RETURNING ${STAGE_COLUMNS}`,
      [pipeline.id, stageName.trim(), last + 1, now],
    );
    return stageRecord(stage);
  }

  async stages(ctx: RequestContext, rawPipelineId: string): Promise<StageRecord[]> {
    const pipeline = await this.find(ctx, rawPipelineId);
    const rows = await ctx.sql<StageRow>(
      `SELECT ${STAGE_COLUMNS} FROM pipeline_stages WHERE pipeline_id = $1 ORDER BY position, id`,
      [pipeline.id],
    );
    return rows.map(stageRecord);
  }

  async locations(ctx: RequestContext): Promise<CrmLocation[]> {
    const rows = await ctx.sql<{ crm_location_id: string; pipelines_count: number }>(
      `SELECT crm_location_id, count(*)::int AS pipelines_count FROM pipelines
       WHERE company_id = $1 AND crm_location_id IS NOT NULL GROUP BY crm_location_id ORDER BY crm_location_id`,
      [await ctx.companyId()],
    );
    return rows.map((r) => ({ crmLocationId: r.crm_location_id, pipelinesCount: r.pipelines_count }));
  }

  private async stageCounts(ctx: RequestContext, ids: number[]): Promise<Map<number, number>> {
    if (ids.length === 0) return new Map();
    const rows = await ctx.sql<{ pipeline_id: number; n: number }>(
      'SELECT pipeline_id, count(*)::int AS n FROM pipeline_stages WHERE pipeline_id = ANY($1) GROUP BY pipeline_id',
      [ids],
    );
    return new Map(rows.map((r) => [r.pipeline_id, r.n]));
  }
}
