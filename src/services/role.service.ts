import type { RequestContext } from '../context/request-context.js';
import type { IdCodec } from '../kernel/ids.js';
import type { ViewerCache } from '../auth/viewer-cache.js';
import { ConflictError, NotFoundError, ValidationError } from '../kernel/errors.js';
import { idOf } from '../db/lookup.js';
import { Rules, message } from '../kernel/validation.js';
import { dbDate, likePattern, pageOf, pageWindow, readPage, type Page, type PageArgs } from '../db/reads.js';
import { BOUNDS } from '../kernel/bounds.js';

/** A role as lists show it. */
export interface RoleRecord {
  id: number;
  title: string;
  isOwner: boolean;
  createdAt: Date;
  updatedAt: Date;
}

interface RoleRow {
  id: number;
  title: string;
  is_owner: boolean;
  created_at: string;
  updated_at: string;
}

const toRecord = (row: RoleRow): RoleRecord => ({
  id: row.id,
  title: row.title,
  isOwner: row.is_owner,
  createdAt: dbDate(row.created_at),
  updatedAt: dbDate(row.updated_at),
});
const ROLE_COLUMNS = 'id, title, is_owner, created_at, updated_at';

/** A permission of the catalog, with the module it belongs to. */
interface PermissionRow {
  id: number;
  slug: string;
  name: string;
  module_id: number;
}

export interface RoleListArgs extends PageArgs {
  search?: string | null;
}

export interface ModulePermissions {
  moduleId: number;
  permissions?: number[] | null;
  permissionIds?: number[] | null;
}

export interface RolePermissionsChange {
  permissions?: number[] | null;
  modules?: ModulePermissions[] | null;
  title?: string | null;
}

export interface PermissionRecord {
  id: number;
  slug: string;
  name: string;
}

/** A module of the permission catalog with its permissions (the GraphQL PermissionModule type). */
export interface PermissionModuleRecord extends PermissionRecord {
  permissions: PermissionRecord[];
}

/** A module with each permission marked as held by a role or not (the GraphQL ModuleGrants type). */
export interface ModuleGrantsRecord {
  moduleId: number;
  slug: string;
  name: string;
  permissions: Array<PermissionRecord & { granted: boolean }>;
}

const permissionRecord = (p: PermissionRow): PermissionRecord => ({ id: p.id, slug: p.slug, name: p.name });

// The same comparison as the unique index on (company_id, lower(title)); a
// rename racing another to one title meets that index (a 422 all the same).
const RENAME = `WITH target AS (SELECT id, is_owner FROM roles WHERE id = $1 AND company_id = $2 FOR UPDATE),
  taken AS (SELECT 1 FROM roles WHERE company_id = $2 AND lower(title) = lower($3) AND id <> $1),
  renamed AS (UPDATE roles r SET title = $3, updated_at = $4 FROM target t
    WHERE r.id = t.id AND NOT t.is_owner AND NOT EXISTS (SELECT 1 FROM taken)
    RETURNING r.id, r.title, r.is_owner, r.created_at, r.updated_at)
  SELECT t.is_owner AS target_is_owner, EXISTS (SELECT 1 FROM taken) AS taken, r.*
  FROM (SELECT 1) AS one LEFT JOIN target t ON true LEFT JOIN renamed r ON true`;

export class RoleService {
  constructor(
    private readonly ids: IdCodec,
    private readonly viewers: ViewerCache,
  ) {}

  /** A page of the company's roles, newest first, read as plain rows. */
  async list(ctx: RequestContext, args: RoleListArgs): Promise<Page<RoleRecord>> {
    const window = pageWindow(args);
    const params: unknown[] = [await ctx.companyId()];
    if (args.search) params.push(likePattern(args.search));
    const { rows, total } = await readPage<RoleRow>(
      ctx,
      {
        select: 'id, title, is_owner, created_at, updated_at',
        from: 'roles',
        where: args.search ? 'company_id = $1 AND title ILIKE $2' : 'company_id = $1',
        orderBy: 'created_at DESC, id DESC',
        params,
      },
      window,
    );
    return pageOf(rows.map(toRecord), total, window);
  }

  /** A role of the viewer's company; 404 for a malformed id, an unknown id or another company's. */
  async view(ctx: RequestContext, rawId: string): Promise<RoleRecord> {
    return this.find(ctx, rawId);
  }

  private async find(ctx: RequestContext, rawId: string, lock = false): Promise<RoleRecord> {
    const id = idOf(this.ids, rawId, 'role', 'Role');
    const [row] = await ctx.sql<RoleRow>(
      `SELECT ${ROLE_COLUMNS} FROM roles WHERE id = $1 AND company_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [id, await ctx.companyId()],
    );
    if (!row) throw new NotFoundError('Role');
    return toRecord(row);
  }

  async create(ctx: RequestContext, input: RolePermissionsChange & { title: string }): Promise<RoleRecord> {
    // Granting permissions is its own right: edit-role alone creates empty roles.
    if (input.permissions || input.modules) await ctx.requirePermissions(['assign-role-permission']);
    const company = await ctx.companyId();
    await this.checkTitle(ctx, company, input.title);
    const permissions = input.permissions || input.modules ? await this.resolvePermissions(ctx, input) : [];
    const now = new Date();
    const [row] = await ctx.sql<RoleRow>(
      `INSERT INTO roles (company_id, title, is_owner, created_at, updated_at) VALUES ($1, $2, false, $3, $3)
       RETURNING ${ROLE_COLUMNS}`,
      [company, input.title.trim(), now],
    );
    await this.grantOnly(ctx, row.id, permissions);
    return toRecord(row);
  }

  /** Renames a role: plain statements in the unit of work (the row locked, the title checked, the row updated). */
  /**
   * A rename in one statement (in the mutation's transaction): the role found
   * in the company, its title checked against the company's others, the row
   * changed only when neither the Owner role nor a taken title stops it. The
   * answers keep their order: 404, then 422 for the title, then 409.
   */
  async update(ctx: RequestContext, rawId: string, title: string): Promise<RoleRecord> {
    const id = idOf(this.ids, rawId, 'role', 'Role');
    const company = await ctx.companyId();
    try {
      new Rules().required('title', title).maxChars('title', title, BOUNDS.role.title.maxLength).check();
    } catch (invalid) {
      const [role] = await ctx.sql('SELECT 1 FROM roles WHERE id = $1 AND company_id = $2', [id, company]);
      throw role ? invalid : new NotFoundError('Role');
    }
    const [row] = await ctx.sql<RoleRow & { target_is_owner: boolean | null; taken: boolean }>(RENAME, [
      id,
      company,
      title.trim(),
      new Date(),
    ]);
    if (row.target_is_owner === null) throw new NotFoundError('Role');
    if (row.taken) throw ValidationError.field('title', message.taken('title'));
    this.assertNotOwner({ isOwner: row.target_is_owner });
    this.forgetViewers(ctx, row);
    return toRecord(row);
  }

  async updatePermissions(ctx: RequestContext, rawId: string, change: RolePermissionsChange): Promise<RoleRecord> {
    const role = await this.find(ctx, rawId, true);
    if (change.title !== undefined && change.title !== null)
      await this.checkTitle(ctx, await ctx.companyId(), change.title, role.id);
    const permissions = await this.resolvePermissions(ctx, change);
    this.assertNotOwner(role);
    const [row] = await ctx.sql<RoleRow>(
      `UPDATE roles SET title = $2, updated_at = $3 WHERE id = $1 RETURNING ${ROLE_COLUMNS}`,
      [role.id, change.title ? change.title.trim() : role.title, new Date()],
    );
    await this.grantOnly(ctx, role.id, permissions);
    this.forgetViewers(ctx, role);
    return toRecord(row);
  }

  /** The role holds these permissions and no other. */
  private async grantOnly(ctx: RequestContext, roleId: number, permissions: PermissionRow[]): Promise<void> {
    const ids = permissions.map((p) => p.id);
    await ctx.sql('DELETE FROM role_permissions WHERE role_id = $1 AND NOT (permission_id = ANY($2::int[]))', [
      roleId,
      ids,
    ]);
    if (ids.length > 0)
      await ctx.sql(
        `INSERT INTO role_permissions (role_id, permission_id) SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING`,
        [roleId, ids],
      );
  }

  async delete(ctx: RequestContext, rawId: string): Promise<void> {
    const role = await this.find(ctx, rawId, true);
    this.assertNotOwner(role);
    const [assigned] = await ctx.sql('SELECT 1 FROM users WHERE role_id = $1 LIMIT 1', [role.id]);
    if (assigned) throw new ConflictError('The role is assigned to users and cannot be deleted.');
    await ctx.sql('DELETE FROM roles WHERE id = $1', [role.id]);
    this.forgetViewers(ctx, role);
  }

  /** Signed-in users of a changed role are read again: in this process at commit, in the others by the trigger's notification. */
  private forgetViewers(ctx: RequestContext, role: { id: number }): void {
    ctx.afterCommit(() => this.viewers.forget({ role: role.id }));
  }

  /** Every module with its permissions, each marked as held by the role or not. */
  async grants(ctx: RequestContext, rawId: string): Promise<{ role: RoleRecord; modules: ModuleGrantsRecord[] }> {
    const role = await this.find(ctx, rawId);
    const rows = await ctx.sql<{ permission_id: number }>(
      'SELECT permission_id FROM role_permissions WHERE role_id = $1',
      [role.id],
    );
    const held = new Set(rows.map((r) => r.permission_id));
    const modules = await this.catalog(ctx);
    return {
      role,
      modules: modules.map((module) => ({
        moduleId: module.id,
        slug: module.slug,
        name: module.name,
        permissions: module.permissions.map((permission) => ({
          ...permission,
          granted: role.isOwner || held.has(permission.id),
        })),
      })),
    };
  }

  /** The permission catalog, grouped by module, in order. */
  async catalog(ctx: RequestContext): Promise<PermissionModuleRecord[]> {
    const modules = await ctx.sql<{ id: number; slug: string; name: string }>(
      'SELECT id, slug, name FROM modules ORDER BY sort_order, id',
    );
    const permissions = await ctx.sql<PermissionRow>('SELECT id, slug, name, module_id FROM permissions ORDER BY id');
    return modules.map((m) => ({
      id: m.id,
      slug: m.slug,
      name: m.name,
      permissions: permissions.filter((p) => p.module_id === m.id).map(permissionRecord),
    }));
  }

  private assertNotOwner(role: { isOwner: boolean }): void {
    if (role.isOwner) throw new ConflictError('The Owner role cannot be changed or deleted.');
  }

  private async checkTitle(ctx: RequestContext, company: number, title: string, exceptId?: number): Promise<void> {
    const rules = new Rules().required('title', title).maxChars('title', title, BOUNDS.role.title.maxLength);
    rules.check();
    // The same comparison as the unique index on (company_id, lower(title)).
    const [clash] = await ctx.sql(
      'SELECT 1 FROM roles WHERE company_id = $1 AND lower(title) = lower($2) AND id <> $3',
      [company, title.trim(), exceptId ?? 0],
    );
    if (clash) throw ValidationError.field('title', message.taken('title'));
  }

  /** The permissions named by `permissions`, or by `modules` (each module's own permissions only). */
  private async resolvePermissions(ctx: RequestContext, change: RolePermissionsChange): Promise<PermissionRow[]> {
    const rules = new Rules();
    const wanted = new Map<number, string>(); // permission id -> field that named it
    const moduleOf = new Map<number, number>();
    if (change.permissions !== undefined && change.permissions !== null) {
      change.permissions.forEach((id, i) => wanted.set(id, `permissions.${i}`));
    } else if (change.modules !== undefined && change.modules !== null) {
      change.modules.forEach((entry, m) => {
        const ids = entry.permissions ?? entry.permissionIds;
        const key = entry.permissions ? 'permissions' : 'permission_ids';
        if (!ids) rules.add(`modules.${m}.permissions`, message.required('permissions'));
        ids?.forEach((id, i) => {
          wanted.set(id, `modules.${m}.${key}.${i}`);
          moduleOf.set(id, entry.moduleId);
        });
      });
    } else {
      rules.add('permissions', message.required('permissions'));
    }
    rules.check();
    const found = wanted.size
      ? await ctx.sql<PermissionRow>('SELECT id, slug, name, module_id FROM permissions WHERE id = ANY($1::int[])', [
          [...wanted.keys()],
        ])
      : [];
    const byId = new Map(found.map((p) => [p.id, p]));
    for (const [id, field] of wanted) {
      const permission = byId.get(id);
      const expectedModule = moduleOf.get(id);
      if (!permission || (expectedModule !== undefined && permission.module_id !== expectedModule)) {
        rules.add(field, `The selected ${field} is invalid.`);
      }
    }
    rules.check();
    return found;
  }
}
