import { dummyHash, verifyPassword } from '../auth/passwords.js';
import type { TokenSigner } from '../auth/tokens.js';
import type { ViewerCache } from '../auth/viewer-cache.js';
import type { ActorSource, CompanyScope, RequestContext, Viewer } from '../context/request-context.js';
import { InvalidCredentialsError } from '../kernel/errors.js';
import { EMAIL, Rules, message } from '../kernel/validation.js';
import type { LoginLimiter } from './login-limiter.js';
import { BOUNDS } from '../kernel/bounds.js';
import { authRepository } from '../repositories/auth.repository.js';

export interface LoginResult {
  success: boolean;
  message: string;
  token: string;
}

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
    const user = await authRepository.userByEmail(ctx, normalised);
    const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash()), password);
    if (!user || !ok) throw new InvalidCredentialsError();
    await this.limiter.succeeded(normalised);
    const { token } = this.tokens.sign(user.id, user.company.id);
    return { success: true, message: 'Login successful', token };
  }

  async logout(ctx: RequestContext): Promise<void> {
    const { claims } = await ctx.viewer();
    await authRepository.revoke(ctx, claims.jti, new Date(claims.exp * 1000));
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
    const found = await authRepository.viewer(ctx, Number(claims.sub), claims.cid, claims.jti);
    if (!found) return undefined;
    const viewer: Viewer = { ...found, permissions: new Set(found.permissions), claims };
    this.viewers.set(token, viewer, mark, this.tokens.endsAt(claims));
    return viewer;
  }

  async companyScope(ctx: RequestContext, companyId: number): Promise<CompanyScope | undefined> {
    return authRepository.companyScope(ctx, companyId);
  }

  /** Drops revoked tokens that no longer matter (a periodic job; the limits' store clears its own windows). */
  async purgeExpired(ctx: RequestContext): Promise<number> {
    return authRepository.purgeRevoked(ctx, new Date());
  }
}
