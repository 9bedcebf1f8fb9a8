import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { startService, type Running } from '../../src/runtime.js';
import { DEMO_PASSWORD } from '../../src/seed/demo.js';

// A real app on a real, fresh PostgreSQL database, reached over HTTP.

export const TEST_JWT_SECRET = 'test-secret-for-switchboard-tests-0123456789';

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

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createDatabase(): Promise<string> {
  const name = `sb_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  return name;
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

  constructor(readonly running: Running, readonly config: Config, readonly database: string) {}

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

  async sql<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
    return this.running.orm.em.fork().getConnection().execute<T[]>(text, params);
  }

  async close(): Promise<void> {
    await this.running.stop();
    await adminQuery(`DROP DATABASE IF EXISTS "${this.database}" WITH (FORCE)`);
  }
}

/** Starts the app on a fresh database with the demo dataset. */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const database = await createDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl(database),
    PORT: '0',
    HOST: '127.0.0.1',
    JWT_SECRET: TEST_JWT_SECRET,
    APP_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...env,
  });
  const running = await startService(config, createLogger(config.logLevel));
  return new TestApp(running, config, database);
}
