import type { EntityManager } from '@mikro-orm/postgresql';
import type { TokenClaims } from './auth/tokens.js';
import { UnauthenticatedError } from './errors.js';
import type { Services } from './services/index.js';

/** Who is signed in for this request, resolved from the Bearer token once. */
export interface Viewer {
  user: { id: number; name: string; email: string };
  company: { id: number; name: string; timeZone: string; isAgency: boolean; parentId: number | null };
  role: { id: number; title: string; isOwner: boolean };
  permissions: ReadonlySet<string>;
  claims: TokenClaims;
}

/**
 * One per request (or job): its own EntityManager fork, its request id and the
 * caller. Services take it first.
 */
export class RequestContext {
  private viewerLookup?: Promise<Viewer | undefined>;

  constructor(
    readonly services: Services,
    readonly em: EntityManager,
    readonly requestId: string,
    readonly ip: string,
    private readonly bearer: string | undefined,
  ) {}

  /** The signed-in viewer; 401 when the token is missing, invalid, expired or revoked. */
  async viewer(): Promise<Viewer> {
    this.viewerLookup ??= this.bearer ? this.services.auth.resolveViewer(this.em, this.bearer) : Promise.resolve(undefined);
    const viewer = await this.viewerLookup;
    if (!viewer) throw new UnauthenticatedError();
    return viewer;
  }

  async companyId(): Promise<number> {
    return (await this.viewer()).company.id;
  }
}
