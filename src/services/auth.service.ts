import { dummyHash, verifyPassword } from '../auth/passwords.js';
import type { TokenSigner } from '../auth/tokens.js';
import type { ViewerCache } from '../auth/viewer-cache.js';
import type { ActorSource, CompanyScope, RequestContext, Viewer } from '../context/request-context.js';
import { InvalidCredentialsError } from '../kernel/errors.js';
import { EMAIL, Rules, message } from '../kernel/validation.js';
import type { LoginLimiter } from './login-limiter.js';
import { BOUNDS } from '../kernel/bounds.js';

export interface LoginResult {
  success: boolean;
  message: string;
  token: string;
}

interface ViewerRow {
  id: number;
  name: string;
  email: string;
  company_id: number;
  company_name: string;
  time_zone: string;
  is_agency: boolean;
  parent_id: number | null;
  role_id: number;
  role_title: string;
  is_owner: boolean;
  permissions: string[] | null;
}

// The Owner role holds every permission, including ones added after it was created.
const VIEWER = `
SELECT u.id, u.name, u.email, c.id AS company_id, c.name AS company_name, c.time_zone, c.is_agency, c.parent_id,
       r.id AS role_id, r.title AS role_title, r.is_owner,
       CASE WHEN r.is_owner THEN (SELECT array_agg(slug) FROM permissions)
            ELSE (SELECT array_agg(p.slug) FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id WHERE rp.role_id = r.id)
       END AS permissions
FROM users u
JOIN companies c ON c.id = u.company_id
JOIN roles r ON r.id = u.role_id
WHERE u.id = $1 AND u.company_id = $2 AND NOT EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = $3)`;

export class AuthService implements ActorSource {
  constructor(
    private readonly tokens: TokenSigner,
    private readonly limiter: LoginLimiter,
    readonly viewers: ViewerCache,
  ) {}

  async login(ctx: RequestContext, email: string, password: string): Promise<LoginResult> {
    const rules = new Rules().required('email', email).required('password', password);
    if (!rules.has('email') && !EMAIL.test(email)) rules.add('email', message.email('email'));
    rules
      .maxChars('email', email, BOUNDS.auth.email.maxLength)
      .maxChars('password', password, BOUNDS.auth.password.maxLength)
      .check();

    const normalised = email.trim().toLowerCase();
    await this.limiter.reserve(ctx, normalised);
    const [user] = await ctx.sql<{ id: number; company_id: number; password_hash: string }>(
      'SELECT id, company_id, password_hash FROM users WHERE email = $1',
      [normalised],
    );
    const ok = await verifyPassword(user?.password_hash ?? (await dummyHash()), password);
    if (!user || !ok) throw new InvalidCredentialsError();
    await this.limiter.succeeded(normalised);
    const { token } = this.tokens.sign(user.id, user.company_id);
    return { success: true, message: 'Login successful', token };
  }

  async logout(ctx: RequestContext): Promise<void> {
    const { claims } = await ctx.viewer();
    await ctx.sql('INSERT INTO revoked_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT (jti) DO NOTHING', [
      claims.jti,
      new Date(claims.exp * 1000),
    ]);
    // This process forgets it at commit; the trigger tells the others.
    ctx.afterCommit(() => this.viewers.forget({ jti: claims.jti }));
  }

  /**
   * Verifies a token not in the cache (`viewers`: one seen lately was verified
   * then, and is kept no longer than its own lifetime), refuses a revoked one,
   * loads the user with the role's permissions.
   */
  async resolveViewer(ctx: RequestContext, token: string): Promise<Viewer | undefined> {
    const claims = this.tokens.verify(token);
    if (!claims) return undefined;
    const mark = this.viewers.mark();
    // One round trip: user, company, role, permissions, revocation.
    const [row] = await ctx.sql<ViewerRow>(VIEWER, [Number(claims.sub), claims.cid, claims.jti]);
    if (!row) return undefined;
    const viewer: Viewer = {
      user: { id: row.id, name: row.name, email: row.email },
      company: {
        id: row.company_id,
        name: row.company_name,
        timeZone: row.time_zone,
        isAgency: row.is_agency,
        parentId: row.parent_id,
      },
      role: { id: row.role_id, title: row.role_title, isOwner: row.is_owner },
      permissions: new Set(row.permissions ?? []),
      claims,
    };
    this.viewers.set(token, viewer, mark, this.tokens.endsAt(claims));
    return viewer;
  }

  async companyScope(ctx: RequestContext, companyId: number): Promise<CompanyScope | undefined> {
    const [row] = await ctx.sql<{
      id: number;
      name: string;
      time_zone: string;
      is_agency: boolean;
      parent_id: number | null;
    }>('SELECT id, name, time_zone, is_agency, parent_id FROM companies WHERE id = $1', [companyId]);
    return (
      row && { id: row.id, name: row.name, timeZone: row.time_zone, isAgency: row.is_agency, parentId: row.parent_id }
    );
  }

  /** Drops revoked tokens that no longer matter (a periodic job; the limits' store clears its own windows). */
  async purgeExpired(ctx: RequestContext): Promise<number> {
    return (await ctx.sql('DELETE FROM revoked_tokens WHERE expires_at < $1 RETURNING 1', [new Date()])).length;
  }
}
