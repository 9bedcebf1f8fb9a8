import express from 'express';
import fastJson from 'fast-json-stringify';
import Fastify from 'fastify';
import jwt from 'jsonwebtoken';
import { createSecretKey, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { VIEWER_CHANNEL } from '../src/auth/viewer-cache.js';
import { VIEWER, type ViewerRow } from './baseline.js';

// The best hand-written routes for the two read pages and the rename, the way a strong
// engineer would write them today: the JWT checked with a key object made
// once, the viewer cached per token and forgotten on the service's own
// revocation channel (viewer_changes), page and total in one prepared
// statement, and the answer written by a stringify compiled from its schema.
// One database round trip per request once the viewer is known (the rename
// too: one statement, its own transaction). The same
// handlers run on fastify (its router and its schema-compiled serializer)
// and on Express (its router, the same compiled stringify), so the cost of
// Express itself shows.

// The total as a scalar subquery beside the page (an index-only count), not a
// window over every matching row: the page still stops at 15 rows.
const ROLES = `SELECT id, title, created_at, updated_at, (SELECT count(*) FROM roles WHERE company_id = $1) AS total
  FROM roles WHERE company_id = $1 ORDER BY created_at DESC, id DESC LIMIT 15`;

const APPOINTMENTS = `WITH r AS (SELECT (date_trunc('year', now() AT TIME ZONE $2) - interval '1 year') AT TIME ZONE $2 AS start,
    date_trunc('year', now() AT TIME ZONE $2) AT TIME ZONE $2 AS "end"),
  page AS (SELECT c.* FROM r, calls c
    WHERE c.company_id = $1 AND c.appointment_at IS NOT NULL AND c.started_at >= r.start AND c.started_at < r."end"
    ORDER BY c.started_at DESC, c.id DESC LIMIT 15)
  SELECT p.id, to_char(p.started_at AT TIME ZONE $2, 'YYYY-MM-DD HH24:MI:SS') AS call_datetime, a.name AS agent_name,
         p.from_number, p.to_number, p.duration_seconds, to_char(p.appointment_at AT TIME ZONE $2, 'YYYY-MM-DD HH24:MI:SS') AS appointment,
         p.status, p.direction, p.sentiment, p.recording_url IS NOT NULL AS recording_available,
         (SELECT count(*) FROM r, calls c WHERE c.company_id = $1 AND c.appointment_at IS NOT NULL AND c.started_at
           >= r.start AND c.started_at < r."end") AS total
  FROM page p LEFT JOIN agents a ON a.id = p.agent_id ORDER BY p.started_at DESC, p.id DESC`;

// A rename in one statement, committed on its own: the role is found in the
// viewer's company, the title checked against the company's others, and the
// row changed only when neither the Owner role nor a taken title stops it; a
// rename racing another to the same title meets the unique index (23505).
const RENAME = `WITH target AS (SELECT id, is_owner FROM roles WHERE id = $1 AND company_id = $2),
  taken AS (SELECT 1 FROM roles WHERE company_id = $2 AND lower(title) = lower($3) AND id <> $1),
  renamed AS (UPDATE roles r SET title = $3, updated_at = now() FROM target t
    WHERE r.id = t.id AND NOT t.is_owner AND NOT EXISTS (SELECT 1 FROM taken) RETURNING r.id)
  SELECT (SELECT is_owner FROM target) AS is_owner, EXISTS (SELECT 1 FROM taken) AS taken, (SELECT count(*) FROM renamed)::int AS renamed`;

const nullableInt = { type: ['integer', 'null'] } as const;
const PAGINATION = {
  type: 'object',
  properties: {
    total: { type: 'integer' },
    current_page: { type: 'integer' },
    per_page: { type: 'integer' },
    last_page: { type: 'integer' },
    from: nullableInt,
    to: nullableInt,
  },
} as const;
const envelope = (record: object) =>
  ({
    type: 'object',
    properties: {
      success: { type: 'boolean' },
      data: { type: 'object', properties: { records: { type: 'array', items: record }, pagination: PAGINATION } },
    },
  }) as const;

export const ROLES_SCHEMA = envelope({
  type: 'object',
  properties: {
    id: { type: 'integer' },
    title: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
});
export const APPOINTMENTS_SCHEMA = envelope({
  type: 'object',
  properties: {
    id: { type: 'integer' },
    call_datetime: { type: 'string' },
    agent_name: { type: ['string', 'null'] },
    numbers: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' } } },
    duration: { type: 'integer' },
    appointment: { type: 'string' },
    status: { type: 'string' },
    direction: { type: 'string' },
    sentiment: { type: ['string', 'null'] },
    recording_available: { type: 'boolean' },
  },
});

const pagination = (total: number, count: number) => {
  const from = count > 0 ? 1 : null;
  return {
    total,
    current_page: 1,
    per_page: 15,
    last_page: Math.max(1, Math.ceil(total / 15)),
    from,
    to: from === null ? null : count,
  };
};

type Answer = { status: number; body: unknown };
const UNAUTHENTICATED: Answer = { status: 401, body: { success: false, message: 'Unauthenticated.' } };
const FORBIDDEN: Answer = { status: 403, body: { success: false, message: 'This action is unauthorized.' } };

/** The handlers, whichever framework serves them: the cached viewer, one statement, the record shapes. */
class BestHandlers {
  readonly pool: pg.Pool;
  private readonly key: KeyObject;
  private readonly viewers = new Map<string, { viewer: ViewerRow; until: number }>();
  private listener?: pg.Client;

  constructor(
    private readonly databaseUrl: string,
    secret: string,
    private readonly cacheMs = 60_000,
  ) {
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
    this.pool.on('error', () => undefined);
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  /** Listens on the service's viewer channel: any change forgets every cached viewer. */
  async start(): Promise<void> {
    this.listener = new pg.Client({ connectionString: this.databaseUrl });
    this.listener.on('error', () => undefined);
    await this.listener.connect();
    this.listener.on('notification', () => this.viewers.clear());
    await this.listener.query(`LISTEN ${VIEWER_CHANNEL}`);
  }

  async stop(): Promise<void> {
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }

  private async viewer(authorization: string | undefined, permission?: string): Promise<ViewerRow | Answer> {
    const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined;
    if (!token) return UNAUTHENTICATED;
    const cached = this.viewers.get(token);
    let viewer = cached && cached.until > Date.now() ? cached.viewer : undefined;
    if (!viewer) {
      let claims: jwt.JwtPayload | undefined;
      try {
        const verified = jwt.verify(token, this.key, {
          algorithms: ['HS256'],
          issuer: 'switchboard',
          audience: 'switchboard-api',
        });
        claims = typeof verified === 'object' ? verified : undefined;
      } catch {
        return UNAUTHENTICATED;
      }
      if (!claims) return UNAUTHENTICATED;
      const {
        rows: [row],
      } = await this.pool.query<ViewerRow>({
        name: 'best-viewer',
        text: VIEWER,
        values: [Number(claims.sub), claims.cid, claims.jti],
      });
      if (!row) return UNAUTHENTICATED;
      viewer = row;
      this.viewers.set(token, { viewer, until: Math.min(Date.now() + this.cacheMs, (claims.exp ?? Infinity) * 1000) });
    }
    if (permission && !viewer.is_owner && !viewer.permissions.includes(permission)) return FORBIDDEN;
    return viewer;
  }

  async roles(authorization: string | undefined): Promise<Answer> {
    const viewer = await this.viewer(authorization, 'view-role');
    if ('status' in viewer) return viewer;
    const { rows } = await this.pool.query({ name: 'best-roles', text: ROLES, values: [viewer.company_id] });
    const total = rows.length > 0 ? Number(rows[0].total) : 0;
    return {
      status: 200,
      body: { success: true, data: { records: rows, pagination: pagination(total, rows.length) } },
    };
  }

  /** The service's answers in its order: 422 for a bad or taken title, 404 for another company's role, 409 for the Owner role. */
  async rename(authorization: string | undefined, rawId: string, body: unknown): Promise<Answer> {
    const viewer = await this.viewer(authorization, 'edit-role');
    if ('status' in viewer) return viewer;
    const given = (body as { title?: unknown } | undefined)?.title;
    const title = typeof given === 'string' ? given.trim() : '';
    const invalid = (message: string): Answer => ({
      status: 422,
      body: { success: false, message, errors: { title: [message] } },
    });
    if (!title) return invalid('The title field is required.');
    if (title.length > 255) return invalid('The title field must not be greater than 255 characters.');
    const id = /^\d{1,9}$/.test(rawId) ? Number(rawId) : 0;
    try {
      const {
        rows: [r],
      } = await this.pool.query({ name: 'best-rename', text: RENAME, values: [id, viewer.company_id, title] });
      if (r.is_owner === null) return { status: 404, body: { success: false, message: 'Role not found.' } };
      if (r.taken) return invalid('The title has already been taken.');
      if (r.is_owner)
        return { status: 409, body: { success: false, message: 'The Owner role cannot be changed or deleted.' } };
      return { status: 200, body: { success: true, message: 'Role updated successfully.' } };
    } catch (error) {
      if ((error as { code?: string }).code === '23505') return invalid('The title has already been taken.');
      throw error;
    }
  }

  async appointments(authorization: string | undefined): Promise<Answer> {
    const viewer = await this.viewer(authorization);
    if ('status' in viewer) return viewer;
    const { rows } = await this.pool.query({
      name: 'best-appointments',
      text: APPOINTMENTS,
      values: [viewer.company_id, viewer.time_zone],
    });
    const total = rows.length > 0 ? Number(rows[0].total) : 0;
    const records = rows.map((r) => ({
      ...r,
      numbers: { from: r.from_number, to: r.to_number },
      duration: r.duration_seconds,
    }));
    return { status: 200, body: { success: true, data: { records, pagination: pagination(total, rows.length) } } };
  }
}

export interface BestRoutes {
  fastifyUrl: string;
  expressUrl: string;
  close(): Promise<void>;
}

/** Both servers on loopback ports of their own, sharing one pool and one viewer cache. */
export async function startBestRoutes(databaseUrl: string, secret: string): Promise<BestRoutes> {
  const handlers = new BestHandlers(databaseUrl, secret);
  await handlers.start();

  const fastify = Fastify({ logger: false });
  const answer = (reply: import('fastify').FastifyReply, a: Answer) => reply.code(a.status).send(a.body);
  fastify.get('/roles', { schema: { response: { 200: ROLES_SCHEMA } } }, async (req, reply) =>
    answer(reply, await handlers.roles(req.headers.authorization)),
  );
  fastify.get('/appointments', { schema: { response: { 200: APPOINTMENTS_SCHEMA } } }, async (req, reply) =>
    answer(reply, await handlers.appointments(req.headers.authorization)),
  );
  fastify.put<{ Params: { id: string } }>('/roles/:id', async (req, reply) =>
    answer(reply, await handlers.rename(req.headers.authorization, req.params.id, req.body)),
  );
  await fastify.listen({ host: '127.0.0.1', port: 0 });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const stringify = { roles: fastJson(ROLES_SCHEMA), appointments: fastJson(APPOINTMENTS_SCHEMA) };
  for (const name of ['roles', 'appointments'] as const) {
    app.get(`/${name}`, async (req, res) => {
      const a = await handlers[name](req.headers.authorization);
      res.status(a.status).type('application/json');
      res.send(a.status === 200 ? stringify[name](a.body as object) : JSON.stringify(a.body));
    });
  }
  app.put('/roles/:id', express.json(), async (req, res) => {
    const a = await handlers.rename(req.headers.authorization, req.params.id, req.body);
    res.status(a.status).type('application/json').send(JSON.stringify(a.body));
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));

  return {
    fastifyUrl: `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}`,
    expressUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await fastify.close();
      await new Promise((resolve) => server.close(resolve));
      await handlers.stop();
    },
  };
}
