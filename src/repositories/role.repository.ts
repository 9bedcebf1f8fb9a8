import { LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { type PageWindow, readPage } from '../db/reads.js';
import { Permission } from '../entities/permission.entity.js';
import { PermissionModule } from '../entities/permission-module.entity.js';
import { Role } from '../entities/role.entity.js';
import { User } from '../entities/user.entity.js';
import { type Listed, listed } from './common.js';

// A company's roles, the permissions they grant and the permission catalog: the one module that knows their tables.

/** A role as the rename's one statement answers it (the rename runs as its own transaction: no EntityManager). */
export interface RenamedRole {
  id: number;
  title: string;
  isOwner: boolean;
  createdAt: Date;
  updatedAt: Date;
}

// The rename, in one statement: the role found in the company and locked, its title checked against the company's
// others (the same comparison as the unique index on (company_id, lower(title)), which a racing rename meets), the
// row changed only when neither the Owner role nor a taken title stops it. Times as epoch milliseconds, made Dates
// without parsing text. Kept by the bench's A/B (ADR 0046).
const RENAME = `WITH target AS (SELECT id, is_owner FROM roles WHERE id = $1 AND company_id = $2 FOR UPDATE),
  taken AS (SELECT 1 FROM roles WHERE company_id = $2 AND lower(title) = lower($3) AND id <> $1),
  renamed AS (UPDATE roles r SET title = $3, updated_at = $4 FROM target t
    WHERE r.id = t.id AND NOT t.is_owner AND NOT EXISTS (SELECT 1 FROM taken)
    RETURNING r.id, r.title, r.is_owner, r.created_at, r.updated_at)
  SELECT t.is_owner AS target_is_owner, EXISTS (SELECT 1 FROM taken) AS taken, r.id, r.title, r.is_owner,
    (extract(epoch FROM r.created_at) * 1000)::float8 AS created_ms, (extract(epoch FROM r.updated_at) * 1000)::float8 AS updated_ms
  FROM (SELECT 1) AS one LEFT JOIN target t ON true LEFT JOIN renamed r ON true`;

export const roleRepository = {
  /** One page of the company's roles, newest first; `pattern`: a LIKE pattern of the title (one statement: a list). */
  async page(
    ctx: RequestContext,
    pattern: string | undefined,
    window: PageWindow,
  ): Promise<[Array<Listed<Role, 'id' | 'title' | 'isOwner' | 'createdAt' | 'updatedAt'>>, number]> {
    const params: unknown[] = [await ctx.companyId()];
    if (pattern) params.push(pattern);
    const { rows, total } = await readPage<Record<string, unknown>>(
      ctx,
      {
        select: 'id, title, is_owner, created_at, updated_at',
        from: 'roles',
        where: pattern ? 'company_id = $1 AND title ILIKE $2' : 'company_id = $1',
        orderBy: 'created_at DESC, id DESC',
        params,
      },
      window,
    );
    return [listed(ctx, Role, rows), total];
  },

  /** The company's role by its id, or null; `lock`: locked until the unit of work ends. */
  async find(ctx: RequestContext, id: number, lock = false): Promise<Role | null> {
    return ctx.em.findOne(
      Role,
      { id, company: await ctx.companyId() },
      lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
    );
  },

  /** Whether another role of the company has this title, compared as the unique index compares (lower case). */
  async titleTaken(ctx: RequestContext, title: string, exceptId = 0): Promise<boolean> {
    const clash = await ctx.em
      .createQueryBuilder(Role)
      .select('id')
      .where({ company: await ctx.companyId(), id: { $ne: exceptId } })
      .andWhere('lower(title) = lower(?)', [title])
      .limit(1)
      .execute('get');
    return clash !== undefined && clash !== null;
  },

  async create(ctx: RequestContext, title: string, permissions: Permission[]): Promise<Role> {
    const role = ctx.em.create(Role, { company: await ctx.companyId(), title });
    role.permissions.set(permissions);
    await ctx.em.flush();
    return role;
  },

  /** The role holds these permissions and no other; its title and time change with them. */
  async regrant(ctx: RequestContext, role: Role, title: string, permissions: Permission[]): Promise<void> {
    await role.permissions.init();
    role.permissions.set(permissions);
    role.title = title;
    role.updatedAt = new Date();
    await ctx.em.flush();
  },

  /** The rename's one statement; null: no such role in the company. */
  async rename(
    ctx: RequestContext,
    id: number,
    title: string,
  ): Promise<{ isOwner: boolean; taken: boolean; role: RenamedRole | null } | null> {
    const [row] = await ctx.sql<{
      target_is_owner: boolean | null;
      taken: boolean;
      id: number | null;
      title: string;
      is_owner: boolean;
      created_ms: number;
      updated_ms: number;
    }>(RENAME, [id, await ctx.companyId(), title, new Date()]);
    if (row.target_is_owner === null) return null;
    return {
      isOwner: row.target_is_owner,
      taken: row.taken,
      role:
        row.id === null
          ? null
          : {
              id: row.id,
              title: row.title,
              isOwner: row.is_owner,
              createdAt: new Date(row.created_ms),
              updatedAt: new Date(row.updated_ms),
            },
    };
  },

  /** Whether a user holds the role. */
  async assigned(ctx: RequestContext, role: Role): Promise<boolean> {
    return (await ctx.em.count(User, { role })) > 0;
  },

  async delete(ctx: RequestContext, role: Role): Promise<void> {
    await ctx.em.nativeDelete(Role, { id: role.id });
  },

  /** The ids of the permissions the role holds. */
  async heldPermissionIds(role: Role): Promise<Set<number>> {
    await role.permissions.init();
    return new Set(role.permissions.getItems().map((permission) => permission.id));
  },

  /** The permission catalog: the modules in order, and every permission by id. */
  async catalog(ctx: RequestContext): Promise<{ modules: PermissionModule[]; permissions: Permission[] }> {
    const modules = await ctx.em.find(PermissionModule, {}, { orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }] });
    const permissions = await ctx.em.find(Permission, {}, { orderBy: { id: 'asc' } });
    return { modules, permissions };
  },

  /** The permissions of these ids that exist. */
  permissions(ctx: RequestContext, ids: number[]): Promise<Permission[]> {
    return ctx.em.find(Permission, { id: { $in: ids } });
  },
};
