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
  /** Reads of viewers under way, by token, with the cache's mark when each began. */
  private readonly reading = new Map<string, { mark: number; viewer: Promise<Viewer | undefined> }>();

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
   * The viewer of a token seen lately, known without waiting. One in use past half its lifetime is read again in the
   * background (docs/adr/0113-viewers-renewed-ahead.md), by `reader`'s context: a token in steady use never waits for
   * its viewer, and its answers never wait for the read.
   */
  cachedViewer(token: string, reader: () => RequestContext): Viewer | undefined {
    const viewer = this.viewers.get(token);
    if (viewer && this.viewers.renewing(token))
      this.resolveViewer(reader(), token).then(
        (fresh) => fresh ?? this.viewers.drop(token),
        () => undefined, // kept until its end; a request then reads it itself
      );
    return viewer;
  }

  /**
   * Verifies a token not in the cache (`viewers`: one seen lately was verified
   * then, and is kept no longer than its own lifetime), refuses a revoked one,
   * loads the user with the role's permissions. Requests that miss the same token together share one read, unless a
   * change came in after it began.
   */
  resolveViewer(ctx: RequestContext, token: string): Promise<Viewer | undefined> {
    const mark = this.viewers.mark();
    const underWay = this.reading.get(token);
    if (underWay?.mark === mark) return underWay.viewer;
    const viewer = this.readViewer(ctx, token, mark).finally(() => {
      if (this.reading.get(token)?.viewer === viewer) this.reading.delete(token);
    });
    this.reading.set(token, { mark, viewer });
    return viewer;
  }

  private async readViewer(ctx: RequestContext, token: string, mark: number): Promise<Viewer | undefined> {
    const claims = this.tokens.verify(token);
    if (!claims) return undefined;
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
