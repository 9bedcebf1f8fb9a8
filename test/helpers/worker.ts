import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { startTestApp, TEST_API_LIMITS, type TestApp } from './app.js';
import { testPoolSize } from './run-settings.js';
import { eventually, type Receiver } from './receiver.js';

/**
 * The service binary as a worker process (PROCESS_ROLE=worker, or another
 * role given in env) on a test app's database, with its secrets; resolves
 * once it says it is running. `nodeArgs` go to node before the script (--cpu-prof).
 */
export async function startWorker(
  app: TestApp,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<ChildProcess & { url: string; output(): string }> {
  const child = spawn(process.execPath, [...nodeArgs, path.resolve('dist/src/main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      PROCESS_ROLE: 'worker',
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: app.running.databaseUrl,
      JWT_SECRET: app.config.jwtSecret,
      APP_KEY: app.config.appKey.toString('base64'),
      TELCO_BASE_URL: app.running.telcoBaseUrl,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      DATABASE_POOL_SIZE: testPoolSize(),
      LOG_LEVEL: 'warn',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sb-worker-')),
      ...TEST_API_LIMITS,
      // A test's workers share the machine with the other test files' processes: lowered beneath them they would
      // starve under load (the bench, in production mode, keeps the product's WORKER_NICE).
      ...(env.NODE_ENV === 'production' ? {} : { WORKER_NICE: '0' }),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await eventually(
    async () =>
      /is running \(\w+\) at (http:\/\/[^\s"]+)/.exec(output)?.[1] ??
      (child.exitCode !== null ? Promise.reject(new Error(output)) : undefined),
    30_000,
    'the worker',
  );
  return Object.assign(child, { url, output: () => output });
}

/** SIGKILL, and wait until the process is gone. */
export async function kill(worker: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGKILL');
  await exited;
}

export interface ApiWithWorkers {
  /** The API, in the test's process (PROCESS_ROLE=api: it schedules jobs but never runs them). */
  readonly app: TestApp;
  /** A token of Acme's owner. */
  readonly owner: string;
  /** A worker process on the app's database; SIGKILLed at the end if still running. */
  startWorker(): Promise<ChildProcess & { url: string; output(): string }>;
  /** A webhook of Acme's for agent.created, to this receiver. */
  hookFor(receiver: Receiver, title: string): Promise<number>;
}

/** For the file (or suite) it is called in: an API started before, worker processes killed and the API closed after. */
export function apiWithWorkers(env: Record<string, string>): ApiWithWorkers {
  let app: TestApp | undefined;
  let owner = '';
  const workers: ChildProcess[] = [];
  before(async () => {
    app = await startTestApp({ PROCESS_ROLE: 'api', ...env });
    owner = await app.login('owner@acme.test');
  });
  after(async () => {
    for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
    await app?.close();
  });
  const started = () => {
    if (!app) throw new Error('the API starts in a before hook: use it inside tests');
    return app;
  };
  return {
    get app() {
      return started();
    },
    get owner() {
      return owner;
    },
    async startWorker() {
      const child = await startWorker(started(), env);
      workers.push(child);
      return child;
    },
    async hookFor(receiver, title) {
      const res = await started().request('POST', '/api/webhooks', {
        token: owner,
        body: { title, url: receiver.url, events: ['agent.created'] },
      });
      assert.equal(res.status, 201, res.text);
      return res.body.data.id;
    },
  };
}
