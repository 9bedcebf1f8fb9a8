import type { RequestContext } from '../context/request-context.js';
import { toBase64Id, type IdCodec } from '../kernel/ids.js';
import { WorkflowStatus, type TriggerConfig } from '../kernel/workflow.js';
import { NotFoundError, ValidationError } from '../kernel/errors.js';
import { graphErrors, sanitizeGraph } from '../workflows/graph.js';
import { LIMITS, Rules, message } from '../kernel/validation.js';
import { likePattern, pageWindow, type Page, type PageArgs } from '../db/reads.js';
import type { Workflow } from '../entities/workflow.entity.js';
import type { WorkflowFolder } from '../entities/workflow-folder.entity.js';
import { type WorkflowFilter, type WorkflowListed, workflowRepository } from '../repositories/workflow.repository.js';
import type { Listed } from '../repositories/common.js';
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

  private record(w: Listed<Workflow, WorkflowListed>): WorkflowRecord {
    return {
      id: toBase64Id(w.id),
      builderId: toBase64Id(w.builderId),
      encryptedId: this.ids.encrypt('workflow', w.id),
      name: w.name,
      description: w.description,
      status: w.status,
      builderEndpoint: builderEndpoint(w.builderId),
      folderId: w.folder ? toBase64Id(w.folder.id) : null,
      triggerConfig: w.triggerConfig,
      createdAt: w.createdAt,
      updatedAt: w.updatedAt,
    };
  }

  /** Writes the workflow's changed fields and answers it as it now is. */
  private async change(ctx: RequestContext, workflow: Workflow, fields: Partial<Workflow>): Promise<WorkflowRecord> {
    Object.assign(workflow, fields);
    await workflowRepository.save(ctx);
    return this.record(workflow);
  }

  async create(ctx: RequestContext, input: WorkflowInput): Promise<WorkflowRecord> {
    const rules = new Rules()
      .maxChars('name', input.name, BOUNDS.workflow.name.maxLength)
      .maxChars('description', input.description, BOUNDS.workflow.description.maxLength);
    rules.check();
    const triggerConfig = this.checkGraph(input.triggerConfig);
    const name = input.name?.trim() || (await this.defaultName(ctx));
    const workflow = await workflowRepository.create(ctx, {
      name,
      description: input.description ?? null,
      triggerConfig,
    });
    return this.record(workflow);
  }

  async find(ctx: RequestContext, rawId: string): Promise<WorkflowRecord> {
    return this.record(await workflowRepository.find(ctx, this.ids, rawId));
  }

  async findByBuilder(ctx: RequestContext, rawBuilderId: string): Promise<WorkflowRecord> {
    return this.record(await this.byBuilder(ctx, rawBuilderId));
  }

  private async byBuilder(ctx: RequestContext, rawBuilderId: string): Promise<Workflow> {
    const builderId = this.ids.decode(rawBuilderId, 'workflow_builder');
    const workflow = builderId === undefined ? null : await workflowRepository.byBuilderId(ctx, builderId);
    if (!workflow) throw new NotFoundError('Workflow');
    return workflow;
  }

  async setStatus(ctx: RequestContext, rawId: string, status: WorkflowStatus): Promise<WorkflowRecord> {
    const workflow = await workflowRepository.find(ctx, this.ids, rawId);
    new Rules().required('status', status).oneOf('status', status, Object.values(WorkflowStatus)).check();
    return this.change(ctx, workflow, { status });
  }

  async saveGraph(
    ctx: RequestContext,
    rawBuilderId: string,
    triggerConfig: TriggerConfig | null,
  ): Promise<WorkflowRecord> {
    const workflow = await this.byBuilder(ctx, rawBuilderId);
    return this.change(ctx, workflow, { triggerConfig: this.checkGraph(triggerConfig) });
  }

  /** Moves a workflow into a folder, or out of every folder with the "no folder" id. */
  async moveToFolder(ctx: RequestContext, rawId: string, rawFolderId: string): Promise<WorkflowRecord> {
    const workflow = await workflowRepository.find(ctx, this.ids, rawId);
    const folder = await this.folderOrNone(ctx, rawFolderId);
    return this.change(ctx, workflow, { folder });
  }

  async list(ctx: RequestContext, args: WorkflowListArgs): Promise<Page<WorkflowRecord>> {
    const window = pageWindow(args);
    const filter: WorkflowFilter = {};
    if (args.folderId !== undefined && args.folderId !== null && args.folderId !== '')
      filter.folder = await this.folderOrNone(ctx, args.folderId);
    if (args.status) filter.status = args.status;
    if (args.search) filter.namePattern = likePattern(args.search);
    const page = await workflowRepository.page(ctx, filter, window);
    return { ...page, records: page.records.map((w) => this.record(w)) };
  }

  async folders(ctx: RequestContext): Promise<FolderRecord[]> {
    const folders = await workflowRepository.folders(ctx);
    const counts = await workflowRepository.folderCounts(ctx);
    return folders.map((folder) => folderRecord(folder, counts.get(folder.id) ?? 0));
  }

  async createFolder(ctx: RequestContext, name: string): Promise<FolderRecord> {
    new Rules().required('name', name).maxChars('name', name, BOUNDS.workflow.name.maxLength).check();
    return folderRecord(await workflowRepository.appendFolder(ctx, name.trim()), 0);
  }

  /**
   * Puts the listed folders first, in the given order (the first gets 1); the
   * company's other folders keep their order after them. All or nothing.
   */
  async reorderFolders(ctx: RequestContext, rawIds: string[]): Promise<void> {
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
    const folders = await workflowRepository.folders(ctx, true);
    const owned = new Map(folders.map((f) => [f.id, f]));
    ids.forEach((id, i) => {
      if (id !== undefined && !owned.has(id) && !rules.has(`folder_ids.${i}`))
        rules.add(`folder_ids.${i}`, `The selected folder_ids.${i} is invalid.`);
    });
    rules.check();
    const listed = ids as number[];
    const order = [...listed.map((id) => owned.get(id)!), ...folders.filter((f) => !seen.has(f.id))];
    // Every folder moves in the unit of work or none does (the unique place is checked at commit).
    order.forEach((folder, i) => {
      folder.sortOrder = i + 1;
    });
    await workflowRepository.save(ctx);
  }

  private async folderOrNone(ctx: RequestContext, rawFolderId: string): Promise<WorkflowFolder | null> {
    const id = this.ids.decode(rawFolderId, 'workflow_folder', undefined, true);
    if (id === 0) return null;
    const folder = id === undefined ? null : await workflowRepository.folder(ctx, id);
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
  private async defaultName(ctx: RequestContext): Promise<string> {
    // One default name is handed out per company at a time, until the workflow holding it is committed.
    const taken = new Set(
      (await workflowRepository.defaultNamesTaken(ctx, DEFAULT_NAME)).map((name) => name.toLowerCase()),
    );
    if (!taken.has(DEFAULT_NAME.toLowerCase())) return DEFAULT_NAME;
    let n = 2;
    while (taken.has(`${DEFAULT_NAME} ${n}`.toLowerCase())) n++;
    return `${DEFAULT_NAME} ${n}`;
  }
}
