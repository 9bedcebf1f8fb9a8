import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestApp } from './app.js';
import { eventually } from './receiver.js';

/**
 * The service binary as a worker process (PROCESS_ROLE=worker, or another
 * role given in env) on a test app's database, with its secrets; resolves
 * once it says it is running.
 */
export async function startWorker(app: TestApp, env: Record<string, string> = {}): Promise<ChildProcess & { url: string }> {
  const child = spawn(process.execPath, [path.resolve('dist/src/main.js')], {
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
      LOG_LEVEL: 'warn',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sb-worker-')),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await eventually(async () => /is running \(\w+\) at (http:\/\/[^\s"]+)/.exec(output)?.[1] ?? (child.exitCode !== null ? Promise.reject(new Error(output)) : undefined), 30_000, 'the worker');
  return Object.assign(child, { url });
}

/** SIGKILL, and wait until the process is gone. */
export async function kill(worker: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGKILL');
  await exited;
}
