import type { RequestContext } from '../context/request-context.js';
import type { IdCodec } from '../kernel/ids.js';
import type { ViewerCache } from '../auth/viewer-cache.js';
import { ConflictError, NotFoundError, ValidationError } from '../kernel/errors.js';
import { idOf } from '../db/lookup.js';
import { Rules, message } from '../kernel/validation.js';
import { likePattern, pageOf, pageWindow, type Page, type PageArgs } from '../db/reads.js';
import type { Permission } from '../entities/permission.entity.js';
import type { Role } from '../entities/role.entity.js';
import { roleRepository } from '../repositories/role.repository.js';
import { BOUNDS } from '../kernel/bounds.js';

/** A role as lists show it. */
export interface RoleRecord {
  id: number;
  title: string;
  isOwner: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const toRecord = (role: Pick<Role, 'id' | 'title' | 'isOwner' | 'createdAt' | 'updatedAt'>): RoleRecord => ({
  id: role.id,
  title: role.title,
  isOwner: role.isOwner,
  createdAt: role.createdAt,
  updatedAt: role.updatedAt,
});

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

const permissionRecord = (p: Permission): PermissionRecord => ({ id: p.id, slug: p.slug, name: p.name });

export class RoleService {
  constructor(
    private readonly ids: IdCodec,
    private readonly viewers: ViewerCache,
  ) {}

  /** A page of the company's roles, newest first, read as plain rows. */
  async list(ctx: RequestContext, args: RoleListArgs): Promise<Page<RoleRecord>> {
    const window = pageWindow(args);
    const [roles, total] = await roleRepository.page(ctx, args.search ? likePattern(args.search) : undefined, window);
    return pageOf(roles.map(toRecord), total, window);
  }

  /** A role of the viewer's company; 404 for a malformed id, an unknown id or another company's. */
  async view(ctx: RequestContext, rawId: string): Promise<RoleRecord> {
    return toRecord(await this.find(ctx, rawId));
  }

  private async find(ctx: RequestContext, rawId: string, lock = false): Promise<Role> {
    const role = await roleRepository.find(ctx, idOf(this.ids, rawId, 'role', 'Role'), lock);
    if (!role) throw new NotFoundError('Role');
    return role;
  }

  async create(ctx: RequestContext, input: RolePermissionsChange & { title: string }): Promise<RoleRecord> {
    // Granting permissions is its own right: edit-role alone creates empty roles.
    if (input.permissions || input.modules) await ctx.requirePermissions(['assign-role-permission']);
    await this.checkTitle(ctx, input.title);
    const permissions = input.permissions || input.modules ? await this.resolvePermissions(ctx, input) : [];
    return toRecord(await roleRepository.create(ctx, input.title.trim(), permissions));
  }

  /**
   * A rename in one statement, its own transaction (repositories/role.repository.ts): the answers keep their order,
   * 404, then 422 for the title, then 409. A refused title is answered 404 first when the role is not the company's,
   * read outside the rename's unit (on the reading pool).
   */
  async update(ctx: RequestContext, rawId: string, title: string): Promise<RoleRecord> {
    const id = idOf(this.ids, rawId, 'role', 'Role');
    try {
      new Rules().required('title', title).maxChars('title', title, BOUNDS.role.title.maxLength).check();
    } catch (invalid) {
      const role = await roleRepository.find(ctx.readOnly(), id);
      throw role ? invalid : new NotFoundError('Role');
    }
    const renamed = await roleRepository.rename(ctx, id, title.trim());
    if (!renamed) throw new NotFoundError('Role');
    if (renamed.taken) throw ValidationError.field('title', message.taken('title'));
    this.assertNotOwner(renamed);
    this.forgetViewers(ctx, { id });
    return toRecord(renamed.role!);
  }

  async updatePermissions(ctx: RequestContext, rawId: string, change: RolePermissionsChange): Promise<RoleRecord> {
    const role = await this.find(ctx, rawId, true);
    if (change.title !== undefined && change.title !== null) await this.checkTitle(ctx, change.title, role.id);
    const permissions = await this.resolvePermissions(ctx, change);
    this.assertNotOwner(role);
    await roleRepository.regrant(ctx, role, change.title ? change.title.trim() : role.title, permissions);
    this.forgetViewers(ctx, role);
    return toRecord(role);
  }

  async delete(ctx: RequestContext, rawId: string): Promise<void> {
    const role = await this.find(ctx, rawId, true);
    this.assertNotOwner(role);
    if (await roleRepository.assigned(ctx, role))
      throw new ConflictError('The role is assigned to users and cannot be deleted.');
    await roleRepository.delete(ctx, role);
    this.forgetViewers(ctx, role);
  }

  /** Signed-in users of a changed role are read again: in this process at commit, in the others by the trigger's notification. */
  private forgetViewers(ctx: RequestContext, role: { id: number }): void {
    ctx.afterCommit(() => this.viewers.forget({ role: role.id }));
  }

  /** Every module with its permissions, each marked as held by the role or not. */
  async grants(ctx: RequestContext, rawId: string): Promise<{ role: RoleRecord; modules: ModuleGrantsRecord[] }> {
    const role = await this.find(ctx, rawId);
    const held = await roleRepository.heldPermissionIds(role);
    const modules = await this.catalog(ctx);
    return {
      role: toRecord(role),
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
    const { modules, permissions } = await roleRepository.catalog(ctx);
    return modules.map((m) => ({
      id: m.id,
      slug: m.slug,
      name: m.name,
      permissions: permissions.filter((p) => p.module.id === m.id).map(permissionRecord),
    }));
  }

  private assertNotOwner(role: { isOwner: boolean }): void {
    if (role.isOwner) throw new ConflictError('The Owner role cannot be changed or deleted.');
  }

  private async checkTitle(ctx: RequestContext, title: string, exceptId?: number): Promise<void> {
    const rules = new Rules().required('title', title).maxChars('title', title, BOUNDS.role.title.maxLength);
    rules.check();
    if (await roleRepository.titleTaken(ctx, title.trim(), exceptId))
      throw ValidationError.field('title', message.taken('title'));
  }

  /** The permissions named by `permissions`, or by `modules` (each module's own permissions only). */
  private async resolvePermissions(ctx: RequestContext, change: RolePermissionsChange): Promise<Permission[]> {
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
    const found = wanted.size ? await roleRepository.permissions(ctx, [...wanted.keys()]) : [];
    const byId = new Map(found.map((p) => [p.id, p]));
    for (const [id, field] of wanted) {
      const permission = byId.get(id);
      const expectedModule = moduleOf.get(id);
      if (!permission || (expectedModule !== undefined && permission.module.id !== expectedModule)) {
        rules.add(field, `The selected ${field} is invalid.`);
      }
    }
    rules.check();
    return found;
  }
}
