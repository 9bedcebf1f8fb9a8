import type { EntityManager } from '@mikro-orm/postgresql';
import { dummyHash, verifyPassword } from '../auth/passwords.js';
import type { TokenSigner } from '../auth/tokens.js';
import type { RequestContext, Viewer } from '../context.js';
import { Permission, RevokedToken, User } from '../entities/index.js';
import { InvalidCredentialsError } from '../errors.js';
import { Rules, message } from '../validation.js';
import type { LoginLimiter } from './login-limiter.js';

export interface LoginResult {
  success: boolean;
  message: string;
  token: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export class AuthService {
  constructor(private readonly tokens: TokenSigner, private readonly limiter: LoginLimiter) {}

  async login(ctx: RequestContext, email: string, password: string): Promise<LoginResult> {
    const rules = new Rules().required('email', email).required('password', password);
    if (!rules.has('email') && !EMAIL.test(email)) rules.add('email', message.email('email'));
    rules.check();

    const normalised = email.trim().toLowerCase();
    await this.limiter.attemptFrom(ctx.em, ctx.ip);
    await this.limiter.assertEmailAllowed(ctx.em, normalised);

    const user = await ctx.em.findOne(User, { email: normalised });
    const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash()), password);
    if (!user || !ok) {
      await this.limiter.failedFor(ctx.em, normalised);
      throw new InvalidCredentialsError();
    }
    await this.limiter.succeededFor(ctx.em, normalised);
    const { token } = this.tokens.sign(user.id, user.company.id);
    return { success: true, message: 'Login successful', token };
  }

  async logout(ctx: RequestContext): Promise<void> {
    const { claims } = await ctx.viewer();
    const revoked = ctx.em.create(RevokedToken, { jti: claims.jti, expiresAt: new Date(claims.exp * 1000) });
    await ctx.em.upsert(revoked);
  }

  /** Verifies the token, refuses a revoked one, loads the user with the role's permissions. */
  async resolveViewer(em: EntityManager, token: string): Promise<Viewer | undefined> {
    const claims = this.tokens.verify(token);
    if (!claims) return undefined;
    if ((await em.count(RevokedToken, { jti: claims.jti })) > 0) return undefined;
    const user = await em.findOne(User, { id: Number(claims.sub), company: claims.cid }, { populate: ['company', 'role.permissions'] });
    if (!user) return undefined;
    const slugs = user.role.isOwner
      ? (await em.find(Permission, {}, { fields: ['slug'] })).map((p) => p.slug)
      : user.role.permissions.getItems().map((p) => p.slug);
    return { user, company: user.company, role: user.role, permissions: new Set(slugs), claims };
  }

  /** Drops revoked tokens and login counters that no longer matter (a periodic job). */
  async purgeExpired(em: EntityManager): Promise<number> {
    const removed = await em.nativeDelete(RevokedToken, { expiresAt: { $lt: new Date() } });
    await em.getConnection().execute("DELETE FROM login_attempts WHERE window_start < now() - interval '1 day'");
    return removed;
  }
}
