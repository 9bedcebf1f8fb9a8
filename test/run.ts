import { spawn } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { createLogger } from '../src/observability/logger.js';

// `npm test`: every *.test.js under dist/test with Node's test runner, against
// TEST_DATABASE_URL or, when that is unset, an embedded PostgreSQL made fresh
// for this run. Each test file creates (and drops) its own database on it.

const here = path.dirname(fileURLToPath(import.meta.url));
const files = readdirSync(here, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.js'))
  .map((file) => path.join(here, file))
  .sort();

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

// Files run side by side: each has a database of its own, and most of their
// time is spent waiting on timers, sockets and PostgreSQL, not on the CPU.
const concurrency = process.env.TEST_CONCURRENCY ?? '4';
const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: { ...process.env, TEST_DATABASE_URL: adminUrl },
});
const code: number = await new Promise((resolve) => child.on('exit', (status) => resolve(status ?? 1)));
await stopEmbedded?.();
process.exit(code);
