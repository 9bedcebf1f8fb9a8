import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../src/config/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { startService, type Running, type StartOptions } from '../../src/platform/runtime.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { DEMO_PASSWORD } from '../../src/seed/demo.js';
import { contractViolation } from './contract.js';
import { SecretBox } from '../../src/crypto/secret-box.js';
import { TEMPLATE_BUILDING_LOCK, TEST_APP_KEY, TEST_JWT_SECRET, testPoolSize } from './run-settings.js';

// A real app on a real, fresh PostgreSQL database, reached over HTTP.

export { TEST_APP_KEY, TEST_JWT_SECRET };

export function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests with `npm test`');
  return url;
}

export function databaseUrl(name: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** One statement on the server's admin database; a server briefly out of connections (53300) is waited for, up to 30 s. */
export async function adminQuery(sql: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; ; ) {
    const client = new pg.Client({ connectionString: adminUrl() });
    try {
      await client.connect();
    } catch (error) {
      if ((error as { code?: string }).code !== '53300' || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      await client.query(sql);
      return;
    } finally {
      await client.end();
    }
  }
}

/** Once per process: the template is complete when `npm test` lets go of its lock. */
let templateBuilt: Promise<void> | undefined;
const templateReady = () =>
  (templateBuilt ??= (async () => {
    const client = new pg.Client({ connectionString: adminUrl() });
    await client.connect();
    try {
      await client.query('SELECT pg_advisory_lock_shared($1)', [TEMPLATE_BUILDING_LOCK]);
    } finally {
      await client.end(); // ends the session, which releases the lock
    }
  })());

/**
 * A database of the test's own: empty, or (`fromTemplate`) a copy of the
 * migrated and seeded template that `npm test` makes once per run
 * (TEST_TEMPLATE_DATABASE; without it, empty, and the app seeds it).
 */
export async function createDatabase(options: { fromTemplate?: boolean } = {}): Promise<string> {
  // Named after the run (`npm test` drops every database of its run at the end, failed runs included).
  const name = `sb_test_${process.env.TEST_RUN_ID ?? 'solo'}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const template = options.fromTemplate ? process.env.TEST_TEMPLATE_DATABASE : undefined;
  if (template) await templateReady();
  for (let attempt = 1; ; attempt++) {
    try {
      await adminQuery(template ? `CREATE DATABASE "${name}" TEMPLATE "${template}"` : `CREATE DATABASE "${name}"`);
      return name;
    } catch (error) {
      // Two copies started at the same instant may see each other on the template; the next try does not.
      if (!template || attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  raw?: string;
}

export class TestApp {
  private tokens = new Map<string, string>();
  /** The test's own connections to the app's database (pg's own parsers: dates are Dates). */
  private pool?: pg.Pool;

  constructor(
    readonly running: Running,
    readonly config: Config,
    readonly database: string,
  ) {}

  get url(): string {
    return this.running.url;
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.url}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    const violation = contractViolation(method, path, response.status, parsed, text);
    if (violation) throw new Error(`contract: ${violation}`);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  /** POST /graphql with one operation. */
  async graphql(query: string, variables: Record<string, unknown> = {}, token?: string): Promise<ApiResponse<any>> {
    return this.request('POST', '/graphql', { token, body: { query, variables } });
  }

  /** A token for a demo login (cached per app). */
  async login(email: string): Promise<string> {
    const cached = this.tokens.get(email);
    if (cached) return cached;
    const response = await this.request('POST', '/api/login', { body: { email, password: DEMO_PASSWORD } });
    if (response.status !== 200) throw new Error(`login ${email} failed: ${response.text}`);
    this.tokens.set(email, response.body.token);
    return response.body.token;
  }

  /**
   * A token for a new user of Acme Agency whose role holds exactly the named
   * permissions (by slug). The role and user are made with SQL, as an admin would.
   */
  async userWith(slugs: string[], label = slugs.join('+') || 'none'): Promise<string> {
    const email = `u${randomBytes(4).toString('hex')}@acme.test`;
    const [{ id: company }] = await this.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
    const [{ id: role }] = await this.sql(
      'INSERT INTO roles (company_id, title, is_owner, created_at, updated_at) VALUES ($1, $2, false, now(), now()) RETURNING id',
      [company, `Only ${label} ${email}`.slice(0, 255)],
    );
    if (slugs.length > 0) {
      await this.sql(
        'INSERT INTO role_permissions (role_id, permission_id) SELECT $1, id FROM permissions WHERE slug = ANY($2)',
        [role, slugs],
      );
    }
    await this.sql(
      'INSERT INTO users (company_id, role_id, name, email, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, now(), now())',
      [company, role, `User ${label}`, email, await hashPassword(DEMO_PASSWORD)],
    );
    return this.login(email);
  }

  /** The company's provider account as the provider knows it: the sid and the auth token that signs its callbacks. */
  async providerAccount(company = 'Acme Agency'): Promise<{ sid: string; authToken: string; companyId: number }> {
    const [row] = await this.sql(
      'SELECT t.account_sid, t.auth_token_sealed, c.id FROM telco_accounts t JOIN companies c ON c.id = t.company_id WHERE c.name = $1',
      [company],
    );
    return {
      sid: row.account_sid,
      authToken: new SecretBox(this.config.appKey).open(row.auth_token_sealed)!,
      companyId: row.id,
    };
  }

  /**
   * A fingerprint of every row the product keeps (login counters and job
   * tables aside): equal before and after means nothing changed. Taken once
   * the calls answered so far are recorded (their records and tool turns are
   * written just after the answer) and no webhook delivery is in flight or
   * due (up to 10 s): what an earlier step caused is not a change of this step.
   */
  async fingerprint(): Promise<string> {
    const { inboundCalls, toolCalls } = this.running.services;
    await Promise.all([inboundCalls.settled(), toolCalls.settled()]);
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      const [{ busy }] = await this.sql(
        "SELECT count(*)::int AS busy FROM webhook_deliveries WHERE in_flight_until IS NOT NULL OR (status = 'pending' AND next_attempt_at <= now())",
      );
      if (busy === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const tables = await this.sql<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
       AND table_name NOT IN ('login_attempts', 'api_budgets', 'agenda_jobs', 'agenda_logs', 'mikro_orm_migrations') ORDER BY table_name`,
    );
    const parts: string[] = [];
    for (const { name } of tables) {
      const [{ digest }] = await this.sql(
        `SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS digest FROM "${name}" t`,
      );
      parts.push(`${name}=${digest}`);
    }
    return parts.join('\n');
  }

  /** A statement of the test's own; after a change, once every process's viewer cache has heard of it (as a request made next would see it). */
  async sql<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
    this.pool ??= new pg.Pool({ connectionString: this.running.databaseUrl, max: 2 });
    const { rows } = await this.pool.query(text, params);
    if (!/^\s*(SELECT|WITH)\b/i.test(text))
      await this.running.services.auth.viewers.barrier((channel, payload) =>
        this.sql('SELECT pg_notify($1, $2)', [channel, payload]),
      );
    return rows as T[];
  }

  /** Stops the service as a deployment would (SIGTERM), keeping its database. */
  async stop(): Promise<void> {
    await this.pool?.end();
    this.pool = undefined;
    await this.running.stop();
  }

  async close(): Promise<void> {
    await this.stop();
    await adminQuery(`DROP DATABASE IF EXISTS "${this.database}" WITH (FORCE)`);
  }
}

/**
 * The suites send many requests with one token, and poll: every service they
 * start gets budgets they never reach. test/rate-limits.test.ts holds the API
 * to small budgets of its own.
 */
export const TEST_API_LIMITS = { API_LIMIT_PER_TOKEN: '10000000/1m', API_LIMIT_PER_COMPANY: '10000000/1m' } as const;

/** A token for a demo login at a service's address (one not started as a TestApp: a child process, a build of its own). */
export async function loginThrough(url: string, email = 'owner@acme.test'): Promise<string> {
  const res = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: DEMO_PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/** Starts the app on a fresh database with the demo dataset. */
/** `logs`: when given, the app's log lines are collected there (at LOG_LEVEL, default silent). */
export async function startTestApp(
  env: Record<string, string> = {},
  options: StartOptions & { logs?: string[] } = {},
): Promise<TestApp> {
  // A test with a clock of its own needs demo data seeded at that time.
  const database = await createDatabase({ fromTemplate: !options.clock });
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl(database),
    PORT: '0',
    HOST: '127.0.0.1',
    JWT_SECRET: TEST_JWT_SECRET,
    APP_KEY: TEST_APP_KEY,
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    DATABASE_POOL_SIZE: testPoolSize(),
    ...TEST_API_LIMITS,
    ...env,
  });
  const log = options.logs
    ? createLogger(config.logLevel, (line) => void options.logs!.push(line), config.logFormat)
    : createLogger(config.logLevel);
  const running = await startService(config, log, options);
  return new TestApp(running, config, database);
}
