import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

// The files that start processes, a browser or a PostgreSQL of their own run
// in a process each. The others share a few processes, one after another in
// each: a test process spends over a second loading the app's modules and
// warming up before its first test, which for most files was a third of their
// CPU. Each file still has its own databases and apps; none changes the
// process's environment (they take theirs as arguments).
const OWN_PROCESS = new Set(LONGEST_FIRST);
const GROUPS = Number(process.env.TEST_GROUPS ?? 4);
const groupDir = mkdtempSync(path.join(tmpdir(), 'sb-test-groups-'));
const shared = files.filter((file) => !OWN_PROCESS.has(path.basename(file, '.test.js')));
const groups = Array.from({ length: Math.min(GROUPS, shared.length) }, (_, i) => {
  const group = path.join(groupDir, `group-${i + 1}.test.mjs`);
  const members = shared.filter((_, at) => at % GROUPS === i);
  // Each file is loaded inside a suite of its own, so its top-level hooks
  // (start the app before, stop it after) and tests belong to that suite:
  // one file's apps are stopped before the next file's start.
  writeFileSync(group, [
    "import { describe } from 'node:test';",
    ...members.map((file) => `describe(${JSON.stringify(path.basename(file, '.test.js'))}, async () => { await import(${JSON.stringify(pathToFileURL(file).href)}); });`),
  ].join('\n'));
  return group;
});
const runs = [...files.filter((file) => OWN_PROCESS.has(path.basename(file, '.test.js'))), ...groups];

// Processes run side by side: each file has a database of its own, and much
// of their time is spent waiting on timers, sockets and PostgreSQL.
const concurrency = process.env.TEST_CONCURRENCY ?? '4';
// A file's process ends when its tests are done: Agenda leaves a timer per job
// it ran (its lock check races the job and is not cleared when the job ends),
// which would hold an idle process, and its slot, for up to half a lock
// lifetime (30 s). The service itself ends with process.exit.
const child = spawn(process.execPath, ['--test', '--test-force-exit', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...runs], {
  stdio: 'inherit',
  env: { ...process.env, TEST_DATABASE_URL: adminUrl, TEST_TEMPLATE_DATABASE: template },
});
const code: number = await new Promise((resolve) => child.on('exit', (status) => resolve(status ?? 1)));
await dropTemplate();
rmSync(groupDir, { recursive: true, force: true });
await stopEmbedded?.();
process.exit(code);
