import type { RequestContext } from '../context/request-context.js';
import { toBase64Id, type IdCodec } from '../kernel/ids.js';
import { WorkflowStatus, type TriggerConfig } from '../kernel/workflow.js';
import { NotFoundError, ValidationError } from '../kernel/errors.js';
import { LOCKS } from '../db/locks.js';
import { graphErrors, sanitizeGraph } from '../workflows/graph.js';
import { LIMITS, Rules, message } from '../kernel/validation.js';
import { ownedRow } from '../db/lookup.js';
import { dbDate, likePattern, pageWindow, readNewestPage, type Page, type PageArgs } from '../db/reads.js';
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

/** A graph as its column's value: JSON, or SQL's NULL for none. */
const jsonOrNull = (graph: TriggerConfig | null) => (graph === null ? null : JSON.stringify(graph));

/** The path of a workflow's builder route. */
export const builderEndpoint = (builderId: number) => `/api/Workflow/builder/${toBase64Id(builderId)}`;

interface WorkflowRow {
  id: number;
  builder_id: number;
  folder_id: number | null;
  name: string;
  description: string | null;
  status: WorkflowStatus;
  trigger_config: TriggerConfig | null;
  created_at: string | Date;
  updated_at: string | Date;
}

const WORKFLOW_COLUMNS = 'id, builder_id, folder_id, name, description, status, trigger_config, created_at, updated_at';

interface FolderRow {
  id: number;
  name: string;
  sort_order: number;
}

const folderRecord = (folder: FolderRow, workflowsCount: number): FolderRecord => ({
  id: toBase64Id(folder.id),
  name: folder.name,
  sortOrder: folder.sort_order,
  workflowsCount,
});

export class WorkflowService {
  constructor(private readonly ids: IdCodec) {}

  private record(w: WorkflowRow): WorkflowRecord {
    return {
      id: toBase64Id(w.id),
      builderId: toBase64Id(w.builder_id),
      encryptedId: this.ids.encrypt('workflow', w.id),
      name: w.name,
      description: w.description ?? null,
      status: w.status,
      builderEndpoint: builderEndpoint(w.builder_id),
      folderId: w.folder_id ? toBase64Id(w.folder_id) : null,
      triggerConfig: w.trigger_config ?? null,
      createdAt: dbDate(w.created_at),
      updatedAt: dbDate(w.updated_at),
    };
  }

  /** Sets columns of a workflow of the company (`set`: "name = $3, ..." after $1 the id and $2 the company). */
  private async change(ctx: RequestContext, id: number, set: string, values: unknown[]): Promise<WorkflowRecord> {
    const [row] = await ctx.sql<WorkflowRow>(
      `UPDATE workflows SET ${set}, updated_at = now() WHERE id = $1 AND company_id = $2 RETURNING ${WORKFLOW_COLUMNS}`,
      [id, await ctx.companyId(), ...values],
    );
    if (!row) throw new NotFoundError('Workflow');
    return this.record(row);
  }

  async create(ctx: RequestContext, input: WorkflowInput): Promise<WorkflowRecord> {
    const rules = new Rules()
      .maxChars('name', input.name, BOUNDS.workflow.name.maxLength)
      .maxChars('description', input.description, BOUNDS.workflow.description.maxLength);
    rules.check();
    const triggerConfig = this.checkGraph(input.triggerConfig);
    const company = await ctx.companyId();
    const name = input.name?.trim() || (await this.defaultName(ctx, company));
    const now = new Date();
    const [row] = await ctx.sql<WorkflowRow>(
      `INSERT INTO workflows (company_id, name, description, trigger_config, status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ${WORKFLOW_COLUMNS}`,
      [company, name, input.description ?? null, jsonOrNull(triggerConfig), WorkflowStatus.draft, now],
    );
    return this.record(row);
  }

  async find(ctx: RequestContext, rawId: string): Promise<WorkflowRecord> {
    return this.record(await this.row(ctx, rawId));
  }

  private async row(ctx: RequestContext, rawId: string): Promise<WorkflowRow> {
    return ownedRow<WorkflowRow>(
      ctx,
      this.ids,
      { table: 'workflows', columns: WORKFLOW_COLUMNS, kind: 'workflow', what: 'Workflow' },
      rawId,
    );
  }

  async findByBuilder(ctx: RequestContext, rawBuilderId: string): Promise<WorkflowRecord> {
    return this.record(await this.byBuilder(ctx, rawBuilderId));
  }

  private async byBuilder(ctx: RequestContext, rawBuilderId: string): Promise<WorkflowRow> {
    const builderId = this.ids.decode(rawBuilderId, 'workflow_builder');
    const [row] =
      builderId === undefined
        ? []
        : await ctx.sql<WorkflowRow>(
            `SELECT ${WORKFLOW_COLUMNS} FROM workflows WHERE builder_id = $1 AND company_id = $2`,
            [builderId, await ctx.companyId()],
          );
    if (!row) throw new NotFoundError('Workflow');
    return row;
  }

  async setStatus(ctx: RequestContext, rawId: string, status: WorkflowStatus): Promise<WorkflowRecord> {
    const workflow = await this.row(ctx, rawId);
    new Rules().required('status', status).oneOf('status', status, Object.values(WorkflowStatus)).check();
    return this.change(ctx, workflow.id, 'status = $3', [status]);
  }

  async saveGraph(
    ctx: RequestContext,
    rawBuilderId: string,
    triggerConfig: TriggerConfig | null,
  ): Promise<WorkflowRecord> {
    const workflow = await this.byBuilder(ctx, rawBuilderId);
    const graph = this.checkGraph(triggerConfig);
    return this.change(ctx, workflow.id, 'trigger_config = $3', [jsonOrNull(graph)]);
  }

  /** Moves a workflow into a folder, or out of every folder with the "no folder" id. */
  async moveToFolder(ctx: RequestContext, rawId: string, rawFolderId: string): Promise<WorkflowRecord> {
    const workflow = await this.row(ctx, rawId);
    const folder = await this.folderOrNone(ctx, rawFolderId);
    return this.change(ctx, workflow.id, 'folder_id = $3', [folder?.id ?? null]);
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
    const page = await readNewestPage<WorkflowRow>(
      ctx,
      { table: 'workflows', columns: WORKFLOW_COLUMNS, where, params },
      window,
    );
    return { ...page, records: page.records.map((w) => this.record(w)) };
  }

  async folders(ctx: RequestContext): Promise<FolderRecord[]> {
    const company = await ctx.companyId();
    const folders = await this.foldersOf(ctx, company);
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
    const now = new Date();
    const [folder] = await ctx.sql<FolderRow>(
      `INSERT INTO workflow_folders (company_id, name, sort_order, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
       RETURNING id, name, sort_order`,
      [company, name.trim(), last + 1, now],
    );
    return folderRecord(folder, 0);
  }

  /**
   * Puts the listed folders first, in the given order (the first gets 1); the
   * company's other folders keep their order after them. All or nothing.
   */
  async reorderFolders(ctx: RequestContext, rawIds: string[]): Promise<void> {
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
    const folders = await this.foldersOf(ctx, company);
    const owned = new Map(folders.map((f) => [f.id, f]));
    ids.forEach((id, i) => {
      if (id !== undefined && !owned.has(id) && !rules.has(`folder_ids.${i}`))
        rules.add(`folder_ids.${i}`, `The selected folder_ids.${i} is invalid.`);
    });
    rules.check();
    const listed = ids as number[];
    const order = [...listed, ...folders.filter((f) => !seen.has(f.id)).map((f) => f.id)];
    // One statement in the unit of work: every folder moves or none does (the unique place is checked at commit).
    await ctx.sql(
      `UPDATE workflow_folders f SET sort_order = o.place, updated_at = now()
       FROM unnest($1::int[]) WITH ORDINALITY AS o(id, place) WHERE f.id = o.id AND f.company_id = $2`,
      [order, company],
    );
  }

  private foldersOf(ctx: RequestContext, company: number): Promise<FolderRow[]> {
    return ctx.sql<FolderRow>(
      'SELECT id, name, sort_order FROM workflow_folders WHERE company_id = $1 ORDER BY sort_order, id',
      [company],
    );
  }

  private async folderOrNone(ctx: RequestContext, rawFolderId: string): Promise<FolderRow | null> {
    const id = this.ids.decode(rawFolderId, 'workflow_folder', undefined, true);
    if (id === 0) return null;
    if (id === undefined) throw new NotFoundError('Folder');
    const [folder] = await ctx.sql<FolderRow>(
      'SELECT id, name, sort_order FROM workflow_folders WHERE id = $1 AND company_id = $2',
      [id, await ctx.companyId()],
    );
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
