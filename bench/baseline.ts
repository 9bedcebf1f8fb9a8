import express, { type Request, type Response } from 'express';
import jwt from 'jsonwebtoken';
import { createSecretKey } from 'node:crypto';
import pg from 'pg';

// The hand-written baseline: Express and pg doing the same job as the service,
// the way a careful engineer would write it: the key object made once, the
// claims pinned (algorithm, issuer, audience, lifetime), one query for the
// viewer (user, company, role, permissions, revocation), the permission, then
// the work, each statement prepared once per connection (named). No cache of
// its own: one viewer query per request.

export interface ViewerRow {
  user_id: number;
  company_id: number;
  time_zone: string;
  is_owner: boolean;
  permissions: string[];
}

/** The viewer in one statement: user, company, role, permissions, and whether the token was revoked. */
export const VIEWER = `
SELECT u.id AS user_id, c.id AS company_id, c.time_zone, r.is_owner,
       CASE WHEN r.is_owner THEN ARRAY[]::text[]
            ELSE ARRAY(SELECT p.slug FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id WHERE rp.role_id = r.id) END AS permissions
FROM users u JOIN companies c ON c.id = u.company_id JOIN roles r ON r.id = u.role_id
WHERE u.id = $1 AND u.company_id = $2 AND NOT EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = $3)`;

export class Baseline {
  readonly app = express();
  readonly pool: pg.Pool;
  private readonly key;

  constructor(
    databaseUrl: string,
    secret: string,
    private readonly ttlSeconds = 86_400,
  ) {
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
    this.pool.on('error', () => undefined); // an idle connection closed by the end of the run
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
    this.app.use(express.json());
  }

  /** The signed-in viewer (holding `permission` when one is named), or undefined once the 401 or 403 is sent. */
  async viewer(req: Request, res: Response, permission?: string): Promise<ViewerRow | undefined> {
    const token = /^Bearer\s+(\S+)$/i.exec(req.header('authorization') ?? '')?.[1];
    let claims: jwt.JwtPayload | undefined;
    try {
      const verified =
        token &&
        jwt.verify(token, this.key, {
          algorithms: ['HS256'],
          issuer: 'switchboard',
          audience: 'switchboard-api',
          maxAge: this.ttlSeconds,
        });
      claims = typeof verified === 'object' ? verified : undefined;
    } catch {
      claims = undefined;
    }
    const {
      rows: [viewer],
    } = claims
      ? await this.query<ViewerRow>('viewer', VIEWER, [Number(claims.sub), claims.cid, claims.jti])
      : { rows: [] };
    if (!viewer) {
      res.status(401).json({ success: false, message: 'Unauthenticated.' });
      return undefined;
    }
    if (permission && !viewer.is_owner && !viewer.permissions.includes(permission)) {
      res.status(403).json({ success: false, message: 'This action is unauthorized.' });
      return undefined;
    }
    return viewer;
  }

  /** A statement prepared once per connection under `name`. */
  query<R extends pg.QueryResultRow = any>(
    name: string,
    text: string,
    values: unknown[],
    client: pg.Pool | pg.PoolClient = this.pool,
  ) {
    return client.query<R>({ name, text, values });
  }

  /** The spec's pagination block. */
  static pagination(total: number, page: number, perPage: number, count: number) {
    const from = count > 0 ? (page - 1) * perPage + 1 : null;
    return {
      total,
      current_page: page,
      per_page: perPage,
      last_page: Math.max(1, Math.ceil(total / perPage)),
      from,
      to: from === null ? null : from + count - 1,
    };
  }
}
