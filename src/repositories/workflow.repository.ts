import { type FilterQuery, raw } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { holdLock, LOCKS } from '../db/locks.js';
import { type Page, type PageWindow, readNewestPage } from '../db/reads.js';
import { Workflow } from '../entities/workflow.entity.js';
import { WorkflowFolder } from '../entities/workflow-folder.entity.js';
import type { IdCodec } from '../kernel/ids.js';
import type { WorkflowStatus } from '../kernel/workflow.js';
import { type Listed, listed, ownedEntity } from './common.js';

/** What a workflow is listed with: every field the API serves. */
export type WorkflowListed =
  | 'id'
  | 'builderId'
  | 'name'
  | 'description'
  | 'status'
  | 'folder'
  | 'triggerConfig'
  | 'createdAt'
  | 'updatedAt';

// A company's workflows and their folders: the one module that knows their tables. The list is one statement
// (a deep page found through the index, with a cursor: db/reads.ts readNewestPage), its rows `Listed`.

/** What a list of workflows keeps: one folder's (null: those in none), a status, a LIKE pattern of the name. */
export interface WorkflowFilter {
  folder?: WorkflowFolder | null;
  status?: WorkflowStatus;
  namePattern?: string;
}

const COLUMNS =
  'id, created_at, updated_at, builder_id, company_id, folder_id, name, description, status, trigger_config';

export const workflowRepository = {
  find(ctx: RequestContext, ids: IdCodec, raw: string): Promise<Workflow> {
    return ownedEntity(ctx, ids, Workflow, { kind: 'workflow', what: 'Workflow' }, raw);
  },

  async byBuilderId(ctx: RequestContext, builderId: number): Promise<Workflow | null> {
    return ctx.em.findOne(Workflow, { builderId, company: await ctx.companyId() });
  },

  /** Makes the workflow, its builder id drawn from the builder's sequence. */
  async create(
    ctx: RequestContext,
    fields: Pick<Workflow, 'name' | 'description' | 'triggerConfig'>,
  ): Promise<Workflow> {
    const workflow = ctx.em.create(Workflow, { ...fields, company: await ctx.companyId() });
    await ctx.em.flush();
    return workflow;
  },

  /** Writes what was changed on the workflows and folders this unit of work holds. */
  save(ctx: RequestContext): Promise<void> {
    return ctx.em.flush();
  },

  /** A page of the company's workflows, newest first, through the index (and a cursor), as entities. */
  async page(
    ctx: RequestContext,
    filter: WorkflowFilter,
    window: PageWindow,
  ): Promise<Page<Listed<Workflow, WorkflowListed>>> {
    const params: unknown[] = [await ctx.companyId()];
    let where = 'company_id = $1';
    if (filter.folder !== undefined)
      where += filter.folder ? ` AND folder_id = $${params.push(filter.folder.id)}` : ' AND folder_id IS NULL';
    if (filter.status) where += ` AND status = $${params.push(filter.status)}`;
    if (filter.namePattern) where += ` AND name ILIKE $${params.push(filter.namePattern)}`;
    const page = await readNewestPage<Record<string, unknown>>(
      ctx,
      { table: 'workflows', columns: COLUMNS, where, params },
      window,
    );
    return { ...page, records: listed(ctx, Workflow, page.records) };
  },

  /** The names of the company's workflows that begin with `prefix`, the company's default names held until the unit of work ends. */
  async defaultNamesTaken(ctx: RequestContext, prefix: string): Promise<string[]> {
    const company = await ctx.companyId();
    await holdLock(ctx, LOCKS.defaultWorkflowName, company);
    const found = await ctx.em.find(Workflow, { company, name: { $ilike: `${prefix}%` } }, { fields: ['name'] });
    return found.map((workflow) => workflow.name);
  },

  /** The company's folder by its id, or null. */
  async folder(ctx: RequestContext, id: number): Promise<WorkflowFolder | null> {
    return ctx.em.findOne(WorkflowFolder, { id, company: await ctx.companyId() });
  },

  /**
   * The company's folders in their order. `lock`: the company's folder order is held until the unit of work ends
   * (one creation or reordering at a time; the deferred unique place backs it up).
   */
  async folders(ctx: RequestContext, lock = false): Promise<WorkflowFolder[]> {
    const company = await ctx.companyId();
    if (lock) await holdLock(ctx, LOCKS.folderOrder, company);
    return ctx.em.find(WorkflowFolder, { company }, { orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }] });
  },

  /** How many workflows each of the company's folders holds. */
  async folderCounts(ctx: RequestContext): Promise<Map<number, number>> {
    const where: FilterQuery<Workflow> = { company: await ctx.companyId(), folder: { $ne: null } };
    const rows = await ctx.em
      .createQueryBuilder(Workflow)
      .select(['folder', raw('cast(count(*) as int) as workflows')])
      .where(where)
      .groupBy('folder')
      .execute<Array<{ folder: number; workflows: number }>>('all');
    return new Map(rows.map((row) => [row.folder, row.workflows]));
  },

  /** Adds a folder after the company's last, holding the folder order until the unit of work ends. */
  async appendFolder(ctx: RequestContext, name: string): Promise<WorkflowFolder> {
    const folders = await workflowRepository.folders(ctx, true);
    const last = Math.max(0, ...folders.map((folder) => folder.sortOrder));
    const folder = ctx.em.create(WorkflowFolder, { company: await ctx.companyId(), name, sortOrder: last + 1 });
    await ctx.em.flush();
    return folder;
  },
};
