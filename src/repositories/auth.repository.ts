import type { CompanyScope, RequestContext, Viewer } from '../context/request-context.js';
import { RevokedToken } from '../entities/revoked-token.entity.js';
import { User } from '../entities/user.entity.js';

// Who signs in and who acts: users by email, the viewer of a token, a company's scope, revoked tokens. The viewer
// and the scope are one statement each, shaped as the request context holds them (built by PostgreSQL as JSON):
// the viewer is read at every token not seen lately, the scope at every unit of work of the system (a job, a
// callback, each webhook delivery), so neither goes through entities (ADR 0078).

// The Owner role holds every permission, including ones added after it was created.
const VIEWER = `
SELECT json_build_object(
  'user', json_build_object('id', u.id, 'name', u.name, 'email', u.email),
  'company', json_build_object('id', c.id, 'name', c.name, 'timeZone', c.time_zone, 'isAgency', c.is_agency,
    'parentId', c.parent_id),
  'role', json_build_object('id', r.id, 'title', r.title, 'isOwner', r.is_owner),
  'permissions', CASE WHEN r.is_owner THEN (SELECT coalesce(json_agg(slug), '[]') FROM permissions)
    ELSE (SELECT coalesce(json_agg(p.slug), '[]') FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id
      WHERE rp.role_id = r.id) END) AS viewer
FROM users u
JOIN companies c ON c.id = u.company_id
JOIN roles r ON r.id = u.role_id
WHERE u.id = $1 AND u.company_id = $2 AND NOT EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = $3)`;

const SCOPE = `SELECT json_build_object('id', id, 'name', name, 'timeZone', time_zone, 'isAgency', is_agency,
  'parentId', parent_id) AS scope FROM companies WHERE id = $1`;

/** A viewer as its statement gives it: the permissions a list, made a set by the caller. */
export type ViewerFound = Omit<Viewer, 'claims' | 'permissions'> & { permissions: string[] };

export const authRepository = {
  /** The user who signs in with this email, with their password's hash. */
  userByEmail(ctx: RequestContext, email: string): Promise<User | null> {
    return ctx.em.findOne(User, { email });
  },

  /** The viewer of a token's user in its company, unless the token was revoked: one round trip. */
  async viewer(ctx: RequestContext, userId: number, companyId: number, jti: string): Promise<ViewerFound | undefined> {
    const [row] = await ctx.sql<{ viewer: ViewerFound }>(VIEWER, [userId, companyId, jti]);
    return row?.viewer;
  },

  async companyScope(ctx: RequestContext, companyId: number): Promise<CompanyScope | undefined> {
    const [row] = await ctx.sql<{ scope: CompanyScope }>(SCOPE, [companyId]);
    return row?.scope;
  },

  /** Revokes a token until it would have expired (once: a second revocation changes nothing). */
  async revoke(ctx: RequestContext, jti: string, expiresAt: Date): Promise<void> {
    await ctx.em.upsert(RevokedToken, { jti, expiresAt }, { onConflictFields: ['jti'], onConflictAction: 'ignore' });
  },

  /** Forgets revoked tokens past their expiry; how many. */
  purgeRevoked(ctx: RequestContext, now: Date): Promise<number> {
    return ctx.em.nativeDelete(RevokedToken, { expiresAt: { $lt: now } });
  },
};
