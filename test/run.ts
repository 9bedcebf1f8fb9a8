import { spawn } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/observability/logger.js';
import { startService } from '../src/runtime.js';
import { TEST_APP_KEY, TEST_JWT_SECRET } from './helpers/app.js';

// `npm test`: every *.test.js under dist/test with Node's test runner, against
// TEST_DATABASE_URL or, when that is unset, an embedded PostgreSQL made fresh
// for this run. Each test file creates (and drops) its own database on it.

const here = path.dirname(fileURLToPath(import.meta.url));
// The files that take longest (processes started and killed, a browser, retry
// schedules) start first, so the short ones fill the gaps instead of the run
// ending on one long file.
const LONGEST_FIRST = ['webhook-crash', 'web', 'shutdown', 'startup', 'webhook-db-restart', 'webhooks', 'jobs', 'webhook-destinations'];
const rank = (file: string) => {
  const at = LONGEST_FIRST.indexOf(path.basename(file, '.test.js'));
  return at === -1 ? LONGEST_FIRST.length : at;
};
// `node dist/test/run.js roles auth` runs only the files named (without .test.ts).
const only = process.argv.slice(2);
const files = readdirSync(here, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.js') && (only.length === 0 || only.includes(path.basename(file, '.test.js'))))
  .map((file) => path.join(here, file))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

let adminUrl = process.env.TEST_DATABASE_URL;
let stopEmbedded: (() => Promise<void>) | undefined;
if (!adminUrl) {
  const dir = path.resolve('.data', `test-postgres-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  const embedded = await startEmbeddedPostgres(dir, 'postgres', createLogger('silent'), { persistent: false });
  adminUrl = embedded.adminUrl;
  stopEmbedded = async () => {
    await embedded.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  process.stdout.write(`# embedded PostgreSQL for this run: ${dir}\n`);
}

// One database migrated and seeded for the whole run; each test file's app
// starts on a copy of it (CREATE DATABASE ... TEMPLATE), not a fresh seed.
const template = `sb_template_${process.pid}`;
{
  const url = new URL(adminUrl);
  url.pathname = `/${template}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${template}"`);
  await admin.query(`CREATE DATABASE "${template}"`);
  const config = loadConfig({
    NODE_ENV: 'test', DATABASE_URL: url.toString(), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET, APP_KEY: TEST_APP_KEY, PROCESS_ROLE: 'api',
  });
  const running = await startService(config, createLogger('silent'));
  await running.stop();
  await admin.end();
}
const dropTemplate = async () => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
  await admin.end();
};

// Files run side by side: each has a database of its own, and most of their
// time is spent waiting on timers, sockets and PostgreSQL, not on the CPU.
const concurrency = process.env.TEST_CONCURRENCY ?? '4';
// A file's process ends when its tests are done: Agenda leaves a timer per job
// it ran (its lock check races the job and is not cleared when the job ends),
// which would hold an idle process, and its slot, for up to half a lock
// lifetime (30 s). The service itself ends with process.exit.
const child = spawn(process.execPath, ['--test', '--test-force-exit', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: { ...process.env, TEST_DATABASE_URL: adminUrl, TEST_TEMPLATE_DATABASE: template },
});
const code: number = await new Promise((resolve) => child.on('exit', (status) => resolve(status ?? 1)));
await dropTemplate();
await stopEmbedded?.();
process.exit(code);
