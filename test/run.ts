import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import pg from 'pg';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/observability/logger.js';
import { TEMPLATE_BUILDING_LOCK, TEST_APP_KEY, TEST_JWT_SECRET, testPoolSize } from './helpers/run-settings.js';
import {
  dropRunDatabases,
  EXHAUSTED,
  PER_HEAVY,
  PER_PROCESS,
  planConcurrency,
  RUNNER,
  sampleConnections,
  withApplicationName,
} from './helpers/connections.js';

// `npm test`: every *.test.js under dist/test with Node's test runner, against
// TEST_DATABASE_URL or, when that is unset, an embedded PostgreSQL made fresh
// for this run. Each test file creates (and drops) its own database on it.

const here = path.dirname(fileURLToPath(import.meta.url));
const name = (file: string) => path.basename(file, '.test.js');
// Seconds each file takes in a full run on this machine (2 cores, measured
// 2026-11-23, the webhook files 2026-11-24); a file not listed counts 3. They only order and pack the run.
const SECONDS: Record<string, number> = {
  shutdown: 45,
  'webhook-db-restart': 35,
  'database-unavailable': 15,
  'dialer-db-restart': 30,
  'webhook-crash': 31,
  'lead-import': 60,
  'dialer-crash': 30,
  dialer: 25,
  'web-campaigns': 20,
  'webhook-fairness': 40,
  startup: 30,
  web: 29,
  'webhook-workers': 24,
  'webhook-wake-ups': 25,
  'webhook-stream-window': 10,
  'webhook-deletion': 4,
  'webhook-fencing': 23,
  webhooks: 22,
  'webhook-destinations': 8,
  http: 8.3,
  auth: 8.2,
  'agent-performance': 6.1,
  'viewer-cache': 5.9,
  'unit-of-work': 5.9,
  authorization: 5.8,
  'telco-callbacks': 5.5,
  'phone-numbers': 5.3,
  'cursor-pages': 5.3,
  'all-events': 5,
  'agents-rest': 4.9,
  'hostile-input': 4.6,
  roles: 4.2,
  dashboard: 4,
  jobs: 4,
  subscriptions: 3.7,
  pipelines: 3.7,
};
const seconds = (file: string) => SECONDS[name(file)] ?? 3;
// `node dist/test/run.js roles auth` runs only the files named (without .test.ts).
const only = process.argv.slice(2);
const files = readdirSync(here, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.js') && (only.length === 0 || only.includes(path.basename(file, '.test.js'))))
  .map((file) => path.join(here, file));
// A name that matches no file is a mistake: said, rather than handing the runner no files (it would then look
// for tests everywhere under the working folder).
const unknown = only.filter((n) => !files.some((file) => name(file) === n));
if (unknown.length > 0) {
  process.stderr.write(`no test file is named ${unknown.join(', ')} (the names are those of test/*.test.ts)\n`);
  process.exit(2);
}

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

// Every connection of the run is named after it, to be counted apart from others'.
const runId = String(process.pid);
adminUrl = withApplicationName(adminUrl, runId);
const finish = async (code: number): Promise<never> => {
  await stopEmbedded?.();
  process.exit(code);
};

// One database migrated and seeded for the whole run; each test file's app
// starts on a copy of it (CREATE DATABASE ... TEMPLATE), not a fresh seed. It
// is built while the test processes load their modules (a second or two
// each): a copy waits for the lock held here until the template is complete.
const template = `sb_template_${runId}`;
const gate = new pg.Client({ connectionString: adminUrl });
try {
  await gate.connect();
} catch (error) {
  process.stdout.write(
    `# ` +
      `${EXHAUSTED.test(String(error)) ? 'PostgreSQL has no connection free for the tests' : 'PostgreSQL cannot be reached'} ` +
      `at ${new URL(adminUrl).host}: ${(error as Error).message}\n`,
  );
  await finish(1);
}
// As many files side by side as the server's free connections allow (TEST_CONCURRENCY at most, default 4),
// counting the files that run an API and two workers on their database at their own size.
const HEAVY = new Set([
  'dialer-crash',
  'webhook-workers',
  'webhook-crash',
  'webhook-fencing',
  'webhook-fairness',
  'webhook-wake-ups',
  'webhook-stream-window',
  'webhook-db-restart',
  'dialer-db-restart',
  'call-path-facts',
]);
const plan = await planConcurrency(
  gate,
  Number(process.env.TEST_CONCURRENCY ?? 4),
  files.filter((file) => HEAVY.has(name(file))).length,
);
if ('refusal' in plan) {
  process.stdout.write(`# ${plan.refusal}\n`);
  await gate.end();
  await finish(1);
}
const { concurrency, budget, max, usedByOthers } = plan as Exclude<typeof plan, { refusal: string }>;
const sampler = sampleConnections(adminUrl, runId);
await gate.query('SELECT pg_advisory_lock($1)', [TEMPLATE_BUILDING_LOCK]);
await gate.query(`DROP DATABASE IF EXISTS "${template}"`);
await gate.query(`CREATE DATABASE "${template}"`);
async function buildTemplate(): Promise<void> {
  const url = new URL(adminUrl!);
  url.pathname = `/${template}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: url.toString(),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    APP_KEY: TEST_APP_KEY,
    PROCESS_ROLE: 'api',
    DATABASE_POOL_SIZE: testPoolSize(),
  });
  const { startService } = await import('../src/platform/runtime.js'); // loads while the tests load
  const running = await startService(config, createLogger('silent'));
  await running.stop();
}

// The files that start processes, a browser or a PostgreSQL of their own run
// in a process each. The others share a few processes, one after another in
// each: a test process spends over a second loading the app's modules and
// warming up before its first test, which for most files was a third of their
// CPU. Each file still has its own databases and apps; none changes the
// process's environment (they take theirs as arguments). Shared files are
// packed longest first into the process with the least so far, and the
// longest processes start first, so the run does not end on one long file.
const OWN_PROCESS = new Set([
  'dialer-crash',
  'database-unavailable',
  'shutdown',
  'webhook-crash',
  'startup',
  'web',
  'webhook-workers',
  'webhook-db-restart',
  'dialer-db-restart',
  'webhooks',
  'webhook-destinations',
  'webhook-brokers',
  'broker-tls',
  'jobs',
]);
const GROUPS = Number(process.env.TEST_GROUPS ?? 3);
const groupDir = mkdtempSync(path.join(tmpdir(), 'sb-test-groups-'));
const packed = Array.from({ length: GROUPS }, () => ({ members: [] as string[], seconds: 0 }));
for (const file of files.filter((f) => !OWN_PROCESS.has(name(f))).sort((a, b) => seconds(b) - seconds(a))) {
  const least = packed.reduce((min, group) => (group.seconds < min.seconds ? group : min));
  least.members.push(file);
  least.seconds += seconds(file);
}
const runs = [
  ...files.filter((file) => OWN_PROCESS.has(name(file))).map((file) => ({ file, seconds: seconds(file) })),
  ...packed
    .filter((group) => group.members.length > 0)
    .map((group, i) => {
      const file = path.join(groupDir, `group-${i + 1}.test.mjs`);
      // Each file is loaded inside a suite of its own, so its top-level hooks
      // (start the app before, stop it after) and tests belong to that suite:
      // one file's apps are stopped before the next file's start.
      writeFileSync(
        file,
        [
          "import { describe } from 'node:test';",
          ...group.members.map(
            (member) =>
              `describe(${JSON.stringify(name(member))}, async () => { await import(${JSON.stringify(pathToFileURL(member).href)}); });`,
          ),
        ].join('\n'),
      );
      return { file, seconds: group.seconds };
    }),
]
  .sort((a, b) => b.seconds - a.seconds)
  .map((run) => run.file);

// Processes run side by side (`concurrency`, planned above): each file has a
// database of its own, and much of their time is spent waiting on timers,
// sockets and PostgreSQL.
// A file's process ends when its tests are done: Agenda leaves a timer per job
// it ran (its lock check races the job and is not cleared when the job ends),
// which would hold an idle process, and its slot, for up to half a lock
// lifetime (30 s). The service itself ends with process.exit.
const child = spawn(
  process.execPath,
  ['--test', '--test-force-exit', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...runs],
  {
    stdio: ['inherit', 'pipe', 'pipe'],
    env: { ...process.env, TEST_DATABASE_URL: adminUrl, TEST_TEMPLATE_DATABASE: template, TEST_RUN_ID: runId },
  },
);
// The output passes through, watched for PostgreSQL running out of connections.
let exhausted = 0;
for (const [from, to] of [
  [child.stdout!, process.stdout],
  [child.stderr!, process.stderr],
] as const) {
  from.on('data', (chunk: Buffer) => {
    to.write(chunk);
    exhausted += chunk
      .toString()
      .split('\n')
      .filter((line) => EXHAUSTED.test(line)).length;
  });
}
const exited: Promise<number> = new Promise((resolve) => child.on('exit', (status) => resolve(status ?? 1)));
// Ctrl-C or a stop: the files stop, and the run's databases are still dropped.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
try {
  await buildTemplate();
} catch (error) {
  process.stderr.write(`the template database could not be built: ${(error as Error).stack}\n`);
  child.kill('SIGTERM'); // the runner stops its files
  process.exitCode = 1;
}
await gate.end(); // releases the lock: the test processes copy the template from here on
let code = (await exited) || (process.exitCode as number | undefined) || 0;
const { peak, byDatabase } = await sampler.stop();
const left = (await dropRunDatabases(adminUrl, runId)).filter((name) => name !== template);
rmSync(groupDir, { recursive: true, force: true });
process.stdout.write(
  `# PostgreSQL connections: at most ${peak} at once in this run, against its budget of ${budget} ` +
    `(${concurrency} file${concurrency === 1 ? '' : 's'} side by side, ${PER_PROCESS} each or ` +
    `${PER_HEAVY} for one with an API and two workers, and ${RUNNER} for the runner and the template); ` +
    `${usedByOthers} of ${max} were in use by others at the start\n`,
);
if (peak > budget) {
  process.stdout.write(
    `# the run took ${peak} connections at once, over its budget of ${budget}: a test's pools are not bounded (at the peak: ${byDatabase})\n`,
  );
  code ||= 1;
}
if (left.length > 0)
  process.stdout.write(`# dropped ${left.length} database(s) that test files left behind: ${left.join(', ')}\n`);
if (exhausted > 0)
  process.stdout.write(
    `# PostgreSQL ran out of connections during the run (53300, too many clients: ${exhausted} lines ` +
      `above): the failures there are that, not the product; free connections and run again\n`,
  );
await finish(code);
