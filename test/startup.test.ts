import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { adminQuery, createDatabase, databaseUrl } from './helpers/app.js';

// Start-up as operators meet it: several processes at once on one empty
// database, and a production start with bad configuration.

const main = path.resolve('dist/src/main.js');
const children: ChildProcess[] = [];
after(() => children.forEach((child) => child.exitCode === null && child.kill('SIGKILL')));

function start(env: Record<string, string>): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [main], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('start-up', () => {
  it('three processes started at once on one empty database all come up, with one copy of the demo data', async () => {
    const database = await createDatabase();
    const secrets = { JWT_SECRET: randomBytes(32).toString('hex'), APP_KEY: randomBytes(32).toString('base64') };
    const processes = [0, 1, 2].map(() =>
      start({ ...secrets, NODE_ENV: 'development', DATABASE_URL: databaseUrl(database), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sb-start-')) }),
    );
    try {
      await until(() => processes.every((p) => /is running/.test(p.output()) || p.child.exitCode !== null), 60_000, 'three starts');
      for (const p of processes) assert.match(p.output(), /Switchboard is running/, p.output());
      const urls = processes.map((p) => /running \(all\) at (http:\/\/[^\s"]+)/.exec(p.output())![1]);
      for (const url of urls) {
        const res = await fetch(`${url}/readyz`);
        assert.equal(res.status, 200);
      }
      const client = await import('pg');
      const db = new client.default.Client({ connectionString: databaseUrl(database) });
      await db.connect();
      try {
        const { rows } = await db.query("SELECT count(*)::int AS n FROM companies WHERE name = 'Acme Agency'");
        assert.equal(rows[0].n, 1, 'seeded once');
      } finally {
        await db.end();
      }
      for (const p of processes) p.child.kill('SIGTERM');
      for (const p of processes) assert.equal(await p.exit, 0);
    } finally {
      await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    }
  });

  it('production without secrets exits 78 with one line per bad variable and no stack', async () => {
    const p = start({ NODE_ENV: 'production', PORT: 'eighty', JWT_TTL: '10s', DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    assert.equal(await p.exit, 78);
    const lines = p.output().trim().split('\n');
    assert.deepEqual(lines.map((line) => /^Invalid configuration: (\w+)/.exec(line)?.[1]), ['JWT_SECRET', 'APP_KEY', 'PORT', 'JWT_TTL'], p.output());
    assert.doesNotMatch(p.output(), /\n\s+at /);
  });

  it('does not seed demo logins in production', async () => {
    const database = await createDatabase();
    const p = start({
      NODE_ENV: 'production', JWT_SECRET: randomBytes(32).toString('hex'), APP_KEY: randomBytes(32).toString('base64'),
      DATABASE_URL: databaseUrl(database), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sb-prod-')),
    });
    try {
      await until(() => /is running/.test(p.output()) || p.child.exitCode !== null, 60_000, 'the start');
      const url = /running \(all\) at (http:\/\/[^\s"]+)/.exec(p.output())![1];
      const login = await fetch(`${url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.test', password: 'switchboard' }) });
      assert.equal(login.status, 404);
      assert.doesNotMatch(p.output(), /Demo logins/);
      p.child.kill('SIGTERM');
      assert.equal(await p.exit, 0);
    } finally {
      await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    }
  });
});
