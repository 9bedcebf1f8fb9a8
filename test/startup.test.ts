import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { adminQuery, adminUrl, createDatabase, databaseUrl } from './helpers/app.js';
import { testPoolSize } from './helpers/run-settings.js';

// Start-up as operators meet it: several processes at once on one empty
// database, and a production start with bad configuration.

const main = path.resolve('dist/src/main.js');
const children: ChildProcess[] = [];
after(() => children.forEach((child) => child.exitCode === null && child.kill('SIGKILL')));

function start(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [main], {
    env: { PATH: process.env.PATH ?? '', DATABASE_POOL_SIZE: testPoolSize(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
      start({
        ...secrets,
        NODE_ENV: 'development',
        DATABASE_URL: databaseUrl(database),
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sb-start-')),
      }),
    );
    try {
      await until(
        () => processes.every((p) => /is running/.test(p.output()) || p.child.exitCode !== null),
        60_000,
        'three starts',
      );
      for (const p of processes) assert.match(p.output(), /Switchboard is running/, p.output());
      const urls = processes.map((p) => /running \(all\) at (http:\/\/[^\s"]+)/.exec(p.output())![1]);
      for (const url of urls) {
        const res = await fetch(`${url}/readyz`);
        assert.equal(res.status, 200);
      }
      // Development lets webhooks reach a receiver on this machine, says so at start, and refuses other private ranges, naming the setting.
      for (const p of processes)
        assert.match(
          p.output(),
          new RegExp(
            String.raw`Webhooks may be sent to this machine \(loopback addresses only, the development default\); ` +
              'production refuses them unless WEBHOOK_ALLOW_PRIVATE=true',
          ),
        );
      const json = { 'content-type': 'application/json' };
      const { token } = (await (
        await fetch(`${urls[0]}/api/login`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ email: 'owner@acme.test', password: 'switchboard' }),
        })
      ).json()) as { token: string };
      const hook = (url: string) =>
        fetch(`${urls[0]}/api/webhooks`, {
          method: 'POST',
          headers: { ...json, authorization: `Bearer ${token}` },
          body: JSON.stringify({ title: 'Local', url, events: ['agent.created'] }),
        });
      assert.equal((await hook('http://127.0.0.1:4000/hooks')).status, 201);
      assert.equal((await hook('http://localhost:4000/hooks')).status, 201);
      const refused = await hook('http://10.0.0.5/hooks');
      assert.equal(refused.status, 422);
      assert.match(
        JSON.stringify(await refused.json()),
        /only loopback is allowed in development; WEBHOOK_ALLOW_PRIVATE=true allows them/,
      );
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
    const p = start({
      NODE_ENV: 'production',
      PORT: 'eighty',
      JWT_TTL: '10s',
      DATABASE_URL: 'postgres://127.0.0.1:1/none',
    });
    assert.equal(await p.exit, 78);
    const lines = p.output().trim().split('\n');
    assert.deepEqual(
      lines.map((line) => /^Invalid configuration: (\w+)/.exec(line)?.[1]),
      ['JWT_SECRET', 'APP_KEY', 'PORT', 'JWT_TTL'],
      p.output(),
    );
    assert.doesNotMatch(p.output(), /\n\s+at /);
  });

  it('each failure to reach the database or to listen is one JSON line naming the cause and the variable, with its own exit code and no stack', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => blocker.once('listening', resolve));
    const busyPort = String((blocker.address() as AddressInfo).port);
    const secrets = {
      NODE_ENV: 'production',
      JWT_SECRET: randomBytes(32).toString('hex'),
      APP_KEY: randomBytes(32).toString('base64'),
      HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sb-fail-')),
    };
    const admin = new URL(adminUrl());
    const faults: Array<{ name: string; env: Record<string, string>; exit: number; cause: RegExp; variable: string }> =
      [
        {
          name: 'database down',
          env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/switchboard', PORT: '0' },
          exit: 69,
          cause: /127\.0\.0\.1:1 cannot be reached \(ECONNREFUSED\)/,
          variable: 'DATABASE_URL',
        },
        {
          name: 'unknown host',
          env: { DATABASE_URL: 'postgres://postgres@no-such-host.invalid:5432/switchboard', PORT: '0' },
          exit: 68,
          cause: /host no-such-host\.invalid is not known/,
          variable: 'DATABASE_URL',
        },
        {
          name: 'unknown role',
          env: { DATABASE_URL: `postgres://no_such_role@${admin.host}/postgres`, PORT: '0' },
          exit: 77,
          cause:
            // The cause the server gives: a trust server knows no such role, a password server refuses the login.
            new RegExp(
              'refused the login: (role "no_such_role" does not exist|password authentication failed for user "no_such_role"|' +
                String.raw`empty password returned by client) \(SQLSTATE 28(000|P01)\)`,
            ),
          variable: 'DATABASE_URL',
        },
        {
          name: 'port in use',
          env: { DATABASE_URL: adminUrl(), PORT: busyPort },
          exit: 71,
          cause: new RegExp(`Port ${busyPort} on 127\\.0\\.0\\.1 is already in use`),
          variable: 'PORT',
        },
      ];
    try {
      await Promise.all(
        faults.map(async (fault) => {
          const p = start({ ...secrets, ...fault.env });
          assert.equal(await p.exit, fault.exit, `${fault.name}: ${p.output()}`);
          const lines = p
            .output()
            .trim()
            .split('\n')
            .map((line) => {
              try {
                return JSON.parse(line) as Record<string, unknown>;
              } catch {
                throw new Error(`${fault.name}: a line that is not JSON: ${line}`);
              }
            });
          const errors = lines.filter((line) => line.level === 'error');
          assert.equal(errors.length, 1, `${fault.name}: one error line: ${p.output()}`);
          assert.match(String(errors[0].message), fault.cause, fault.name);
          assert.equal(errors[0].variable, fault.variable);
          assert.equal(errors[0].exitCode, fault.exit);
          assert.doesNotMatch(p.output(), /\bat [^\s]+ \(|node_modules|"stack"/, `${fault.name}: no stack`);
        }),
      );
    } finally {
      blocker.close();
    }
  });

  it('does not seed demo logins in production', async () => {
    const database = await createDatabase();
    const p = start({
      NODE_ENV: 'production',
      JWT_SECRET: randomBytes(32).toString('hex'),
      APP_KEY: randomBytes(32).toString('base64'),
      DATABASE_URL: databaseUrl(database),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sb-prod-')),
    });
    try {
      await until(() => /is running/.test(p.output()) || p.child.exitCode !== null, 60_000, 'the start');
      const url = /running \(all\) at (http:\/\/[^\s"]+)/.exec(p.output())![1];
      const login = await fetch(`${url}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'owner@acme.test', password: 'switchboard' }),
      });
      assert.equal(login.status, 404);
      assert.doesNotMatch(p.output(), /Demo login/);
      assert.doesNotMatch(p.output(), /Webhooks may be sent/);
      p.child.kill('SIGTERM');
      assert.equal(await p.exit, 0);
    } finally {
      await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    }
  });
});
