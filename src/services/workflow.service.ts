import type { RequestContext } from '../context/request-context.js';
import { toBase64Id, type IdCodec } from '../kernel/ids.js';
import { Workflow, WorkflowFolder, WorkflowStatus, type TriggerConfig } from '../entities/index.js';
import { NotFoundError, ValidationError } from '../kernel/errors.js';
import { LOCKS } from '../db/locks.js';
import { graphErrors, sanitizeGraph } from '../workflows/graph.js';
import { LIMITS, Rules, message } from '../kernel/validation.js';
import { findOwned, findPageByKeys } from '../db/lookup.js';
import { likePattern, pageWindow, type Page, type PageArgs } from '../db/reads.js';
import { BOUNDS } from '../kernel/bounds.js';

const DEFAULT_NAME = 'Untitled workflow';

export interface WorkflowInput {
  name?: string | null;
  description?: string | null;
  triggerConfig?: TriggerConfig | null;
}

export interface WorkflowListArgs extends PageArgs {
  /** A folder id; the "no folder" id (base64 of 0) lists uncategorized workflows. */
  folderId?: string | null;
  status?: WorkflowStatus | null;
  search?: string | null;
}

/** A workflow as the GraphQL Workflow type serves it. */
export interface WorkflowRecord {
  id: string;
  builderId: string;
  encryptedId: string;
  name: string;
  description: string | null;
  status: WorkflowStatus;
  builderEndpoint: string;
  folderId: string | null;
  triggerConfig: TriggerConfig | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A folder as the GraphQL WorkflowFolder type serves it. */
export interface FolderRecord {
  id: string;
  name: string;
  sortOrder: number;
  workflowsCount: number;
}

/** The path of a workflow's builder route. */
export const builderEndpoint = (builderId: number) => `/api/Workflow/builder/${toBase64Id(builderId)}`;

const folderRecord = (folder: WorkflowFolder, workflowsCount: number): FolderRecord => ({
  id: toBase64Id(folder.id),
  name: folder.name,
  sortOrder: folder.sortOrder,
  workflowsCount,
});

export class WorkflowService {
  constructor(private readonly ids: IdCodec) {}

  private record(w: Workflow): WorkflowRecord {
    return {
      id: toBase64Id(w.id),
      builderId: toBase64Id(w.builderId),
      encryptedId: this.ids.encrypt('workflow', w.id),
      name: w.name,
      description: w.description ?? null,
      status: w.status,
      builderEndpoint: builderEndpoint(w.builderId),
      folderId: w.folder ? toBase64Id(w.folder.id) : null,
      triggerConfig: w.triggerConfig ?? null,
      createdAt: w.createdAt,
      updatedAt: w.updatedAt,
    };
  }

  async create(ctx: RequestContext, input: WorkflowInput): Promise<WorkflowRecord> {
    const rules = new Rules()
      .maxChars('name', input.name, BOUNDS.workflow.name.maxLength)
      .maxChars('description', input.description, BOUNDS.workflow.description.maxLength);
    rules.check();
    const triggerConfig = this.checkGraph(input.triggerConfig);
    const company = await ctx.companyId();
    const name = input.name?.trim() || (await this.defaultName(ctx, company));
    const workflow = ctx.em.create(Workflow, {
      company,
      name,
      description: input.description ?? null,
      triggerConfig,
      status: WorkflowStatus.draft,
    });
    await ctx.em.flush();
    await ctx.em.refresh(workflow); // the builder id comes from its database sequence
    return this.record(workflow);
  }

  find(ctx: RequestContext, rawId: string): Promise<Workflow> {
    return findOwned(ctx, this.ids, Workflow, rawId, 'workflow', 'Workflow');
  }

  async findByBuilder(ctx: RequestContext, rawBuilderId: string): Promise<WorkflowRecord> {
    return this.record(await this.byBuilder(ctx, rawBuilderId));
  }

  private async byBuilder(ctx: RequestContext, rawBuilderId: string): Promise<Workflow> {
    const builderId = this.ids.decode(rawBuilderId, 'workflow_builder');
    const workflow =
      builderId === undefined ? null : await ctx.em.findOne(Workflow, { builderId, company: await ctx.companyId() });
    if (!workflow) throw new NotFoundError('Workflow');
    return workflow;
  }

  async setStatus(ctx: RequestContext, rawId: string, status: WorkflowStatus): Promise<WorkflowRecord> {
    const workflow = await this.find(ctx, rawId);
    new Rules().required('status', status).oneOf('status', status, Object.values(WorkflowStatus)).check();
    workflow.status = status;
    await ctx.em.flush();
    return this.record(workflow);
  }

  async saveGraph(
    ctx: RequestContext,
    rawBuilderId: string,
    triggerConfig: TriggerConfig | null,
  ): Promise<WorkflowRecord> {
    const workflow = await this.byBuilder(ctx, rawBuilderId);
    workflow.triggerConfig = this.checkGraph(triggerConfig);
    await ctx.em.flush();
    return this.record(workflow);
  }

  /** Moves a workflow into a folder, or out of every folder with the "no folder" id. */
  async moveToFolder(ctx: RequestContext, rawId: string, rawFolderId: string): Promise<WorkflowRecord> {
    const workflow = await this.find(ctx, rawId);
    workflow.folder = await this.folderOrNone(ctx, rawFolderId);
    await ctx.em.flush();
    return this.record(workflow);
  }

  async list(ctx: RequestContext, args: WorkflowListArgs): Promise<Page<WorkflowRecord>> {
    const window = pageWindow(args);
    const params: unknown[] = [await ctx.companyId()];
    let where = 'company_id = $1';
    if (args.folderId !== undefined && args.folderId !== null && args.folderId !== '') {
      const folder = await this.folderOrNone(ctx, args.folderId);
      where += folder ? ` AND folder_id = $${params.push(folder.id)}` : ' AND folder_id IS NULL';
    }
    if (args.status) where += ` AND status = $${params.push(args.status)}`;
    if (args.search) where += ` AND name ILIKE $${params.push(likePattern(args.search))}`;
    const page = await findPageByKeys(ctx, Workflow, { from: 'workflows', where, params }, window);
    return { ...page, records: page.records.map((w) => this.record(w)) };
  }

  async folders(ctx: RequestContext): Promise<FolderRecord[]> {
    const company = await ctx.companyId();
    const folders = await ctx.em.find(WorkflowFolder, { company }, { orderBy: { sortOrder: 'asc', id: 'asc' } });
    const counts = await ctx.sql<{ folder_id: number; n: number }>(
      'SELECT folder_id, count(*)::int AS n FROM workflows WHERE company_id = $1 AND folder_id IS NOT NULL GROUP BY folder_id',
      [company],
    );
    const byFolder = new Map(counts.map((c) => [c.folder_id, c.n]));
    return folders.map((folder) => folderRecord(folder, byFolder.get(folder.id) ?? 0));
  }

  async createFolder(ctx: RequestContext, name: string): Promise<FolderRecord> {
    new Rules().required('name', name).maxChars('name', name, BOUNDS.workflow.name.maxLength).check();
    const company = await ctx.companyId();
    // One folder creation per company at a time, until this unit of work commits; the unique sort order backs it up.
    await ctx.sql('SELECT pg_advisory_xact_lock($1, $2)', [LOCKS.folderOrder, company]);
    const [{ last }] = await ctx.sql<{ last: number }>(
      'SELECT COALESCE(MAX(sort_order), 0)::int AS last FROM workflow_folders WHERE company_id = $1',
      [company],
    );
    const folder = ctx.em.create(WorkflowFolder, { company, name: name.trim(), sortOrder: last + 1 });
    await ctx.em.flush();
    return folderRecord(folder, 0);
  }

  /**
   * Puts the listed folders first, in the given order (the first gets 1); the
   * company's other folders keep their order after them. All or nothing.
   */
  async reorderFolders(ctx: RequestContext, rawIds: string[]): Promise<WorkflowFolder[]> {
    const company = await ctx.companyId();
    const rules = new Rules();
    if (rawIds.length === 0) rules.add('folderIds', message.required('folderIds'));
    if (rawIds.length > LIMITS.arrayItems) rules.add('folderIds', message.maxItems('folderIds', LIMITS.arrayItems));
    rules.check();
    const seen = new Set<number>();
    const ids = rawIds.map((raw, i) => {
      const id = this.ids.decode(raw, 'workflow_folder');
      if (id === undefined) rules.add(`folder_ids.${i}`, `The selected folder_ids.${i} is invalid.`);
      else if (seen.has(id)) rules.add(`folder_ids.${i}`, `The folder_ids.${i} field has a duplicate value.`);
      else seen.add(id);
      return id;
    });
    rules.check();
    await ctx.sql('SELECT pg_advisory_xact_lock($1, $2)', [LOCKS.folderOrder, company]);
    const folders = await ctx.em.find(WorkflowFolder, { company }, { orderBy: { sortOrder: 'asc', id: 'asc' } });
    const owned = new Map(folders.map((f) => [f.id, f]));
    ids.forEach((id, i) => {
      if (id !== undefined && !owned.has(id) && !rules.has(`folder_ids.${i}`))
        rules.add(`folder_ids.${i}`, `The selected folder_ids.${i} is invalid.`);
    });
    rules.check();
    const listed = ids as number[];
    const order = [...listed.map((id) => owned.get(id)!), ...folders.filter((f) => !seen.has(f.id))];
    order.forEach((folder, i) => {
      folder.sortOrder = i + 1;
    });
    await ctx.em.flush(); // one transaction: every folder moves or none does
    return order;
  }

  private async folderOrNone(ctx: RequestContext, rawFolderId: string): Promise<WorkflowFolder | null> {
    const id = this.ids.decode(rawFolderId, 'workflow_folder', undefined, true);
    if (id === 0) return null;
    if (id === undefined) throw new NotFoundError('Folder');
    const folder = await ctx.em.findOne(WorkflowFolder, { id, company: await ctx.companyId() });
    if (!folder) throw new NotFoundError('Folder');
    return folder;
  }

  /** The graph as stored: checked, and holding only the keys the catalogs name. */
  private checkGraph(graph: TriggerConfig | null | undefined): TriggerConfig | null {
    const errors = graphErrors(graph);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return graph ? sanitizeGraph(graph) : null;
  }

  /** "Untitled workflow", then "Untitled workflow 2", ... unique within the company. */
  private async defaultName(ctx: RequestContext, company: number): Promise<string> {
    // One default name is handed out per company at a time, until the workflow holding it is committed.
    await ctx.sql('SELECT pg_advisory_xact_lock($1, $2)', [LOCKS.defaultWorkflowName, company]);
    const rows = await ctx.sql<{ name: string }>(
      "SELECT name FROM workflows WHERE company_id = $1 AND name ILIKE 'Untitled workflow%'",
      [company],
    );
    const taken = new Set(rows.map((r) => r.name.toLowerCase()));
    if (!taken.has(DEFAULT_NAME.toLowerCase())) return DEFAULT_NAME;
    let n = 2;
    while (taken.has(`${DEFAULT_NAME} ${n}`.toLowerCase())) n++;
    return `${DEFAULT_NAME} ${n}`;
  }
}
