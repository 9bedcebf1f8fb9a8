import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import path from 'node:path';
import { embeddedPostgresSkip } from './helpers/processes.js';
import { after, describe, it } from 'node:test';
import { adminQuery, createDatabase, databaseUrl } from './helpers/app.js';
import { testPoolSize } from './helpers/run-settings.js';

// The real binary on a fresh machine's path: no DATABASE_URL, so embedded
// PostgreSQL under DATA_DIR; then SIGTERM with a request in flight.

// Not mkdtemp: its mode 700 would keep the server's own user out.
const dataDir = path.resolve('.data', `shutdown-${process.pid}`);
rmSync(dataDir, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true, mode: 0o755 });
after(() => rmSync(dataDir, { recursive: true, force: true }));

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(pattern);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
  });
}

const postgresProcesses = () => {
  try {
    return execFileSync('pgrep', ['-f', dataDir], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
};

const embeddedSkip = embeddedPostgresSkip();

/** The binary started as `npm start` starts it, with `env` over the defaults; its exit code once it exits. */
function startBinary(env: Record<string, string>): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_POOL_SIZE: testPoolSize(),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, exited: new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code))) };
}

/** What the banner says once the service runs: its address, then a demo login. */
const RUNNING = /running \(all\) at (http:\/\/[^\s"]+)[\s\S]*owner@acme\.test/;

/** Starts the binary, sends SIGTERM with a login request half-sent, and checks the request still completes. */
async function startThenStop(env: Record<string, string>, whileRunning: () => void = () => {}): Promise<void> {
  const { child, exited } = startBinary(env);
  const [, url] = await waitForLine(child, RUNNING, 60_000);
  whileRunning();

  const { port } = new URL(url);
  const body = JSON.stringify({ email: 'owner@acme.test', password: 'switchboard' });
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let response = '';
  socket.on('data', (chunk) => (response += chunk.toString()));
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.write(
    `POST /api/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
  );
  socket.write(body.slice(0, 10));
  await new Promise((resolve) => setTimeout(resolve, 200));

  child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 300));
  socket.write(body.slice(10));
  await closed;
  assert.match(response, /^HTTP\/1\.1 200 /, response);
  assert.match(response, /"message":"Login successful"/);

  assert.equal(await exited, 0);
}

describe('npm start, then SIGTERM', () => {
  it('on DATABASE_URL: prints a login and finishes the in-flight request before exiting', async () => {
    const database = await createDatabase();
    try {
      await startThenStop({ DATABASE_URL: databaseUrl(database), DATA_DIR: dataDir });
    } finally {
      await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    }
  });

  it('on a fresh data folder: embedded PostgreSQL, and no process left behind', { skip: embeddedSkip }, async () => {
    await startThenStop({ DATA_DIR: dataDir }, () => {
      assert.notEqual(postgresProcesses(), '', 'embedded PostgreSQL runs under the data folder');
    });
    assert.equal(postgresProcesses(), '', 'no PostgreSQL process left behind');
  });

  it('while it starts, its embedded PostgreSQL running: stops it, and exits 0', { skip: embeddedSkip }, async () => {
    const { child, exited } = startBinary({ DATA_DIR: dataDir, LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitForLine(child, /embedded PostgreSQL started/, 60_000);
    assert.notEqual(postgresProcesses(), '', 'embedded PostgreSQL runs under the data folder');
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output);
    assert.doesNotMatch(output, /Switchboard is running/, 'stopped before it served');
    assert.match(output, /"message":"stopped"/);
    assert.equal(postgresProcesses(), '', 'no PostgreSQL process left behind');
  });
});

/** One GET over a connection of its own; resolves with the status (or the error), reports when the request is sent. */
function slowGet(url: string, token: string, sent: () => void): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(
      url,
      { headers: { authorization: `Bearer ${token}`, connection: 'close' }, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', (error) => resolve(error.message));
    req.on('finish', sent);
    req.end();
  });
}

describe('Ctrl-C in a terminal (a signal to the whole process group)', { skip: embeddedSkip }, () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} to the group: every in-flight request is answered, PostgreSQL stops last, exit 0`, async () => {
      // detached: a group of its own, as a terminal gives a foreground job.
      const child = spawn(process.execPath, ['dist/src/main.js'], {
        env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        const [, url] = await waitForLine(
          child,
          /running \(all\) at (http:\/\/[^\s"]+)[\s\S]*owner@acme\.test/,
          90_000,
        );
        assert.notEqual(postgresProcesses(), '');
        const login = await fetch(`${url}/api/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'owner@acme.test', password: 'switchboard' }),
        });
        const { token } = (await login.json()) as { token: string };

        // Thirty dashboard queries (each reads a year of calls) are in flight when the signal comes.
        const count = 30;
        let sentCount = 0;
        let allSent!: () => void;
        const everySent = new Promise<void>((resolve) => (allSent = resolve));
        const answers = Array.from({ length: count }, () =>
          slowGet(
            `${url}/api/ai/dashboard/appointments?date_range=Last%20Year&per_page=50`,
            token,
            () => ++sentCount === count && allSent(),
          ),
        );
        await everySent;
        process.kill(-child.pid!, signal);
        assert.deepEqual(await Promise.all(answers), Array(count).fill(200), output);
        assert.equal(await exited, 0, output);
        assert.doesNotMatch(output, /terminating connection|Unhandled|uncaught|ECONNRESET/i);
        assert.equal(postgresProcesses(), '', 'no PostgreSQL process left behind');
      } finally {
        if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      }
    });
  }

  it('as root, a data folder the postgres user cannot enter: a clear error naming the fix, and no secret left behind', {
    skip: process.getuid?.() !== 0 ? 'only as root' : false,
  }, async () => {
    const closed = mkdtempSync(path.join(tmpdir(), 'sb-closed-')); // mode 700: the postgres user cannot enter
    const leftovers = () =>
      readdirSync(tmpdir())
        .filter((name) => name.startsWith('switchboard-initdb-'))
        .sort();
    const before = leftovers();
    try {
      const child = spawn(process.execPath, ['dist/src/main.js'], {
        env: {
          PATH: process.env.PATH ?? '',
          PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
          DATA_DIR: path.join(closed, 'data'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      assert.equal(code, 69, output);
      // Not at a terminal, so the log is JSON: the one line is a JSON object.
      const [line] = output
        .trim()
        .split('\n')
        .map((text) => JSON.parse(text) as { message: string; variable: string });
      assert.equal(line.variable, 'DATABASE_URL');
      assert.match(
        line.message,
        new RegExp(
          `^Switchboard failed to start: The embedded PostgreSQL runs as the "postgres" user .*cannot enter ` +
            `${closed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*DATABASE_URL`,
        ),
      );
      assert.doesNotMatch(output, /\bat [^\s]+ \(|"stack"/, 'no stack');
      assert.deepEqual(leftovers(), before, 'no password file left in the temporary folder');
    } finally {
      rmSync(closed, { recursive: true, force: true });
    }
  });
});

/** Runs one of the package's commands to its end with the service's data folder; its exit code and output. */
function command(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('commands beside a running service on the same data folder', { skip: embeddedSkip }, () => {
  it("npm run seed and npm run limits use the service's database and leave it running; seed --reset refuses", async () => {
    const shared = path.resolve('.data', `beside-${process.pid}`);
    rmSync(shared, { recursive: true, force: true });
    mkdirSync(shared, { recursive: true, mode: 0o755 });
    const env = { DATA_DIR: shared };
    const { child, exited } = startBinary(env);
    try {
      const [, url] = await waitForLine(child, RUNNING, 90_000);
      const serverPid = () => readFileSync(path.join(shared, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0];
      const server = serverPid();
      const login = await fetch(`${url}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'owner@acme.test', password: 'switchboard' }),
      });
      const { token } = (await login.json()) as { token: string };
      // The service answers throughout: a read and its readiness every 50 ms while the commands run.
      const statuses: number[] = [];
      let polling = true;
      const poller = (async () => {
        while (polling) {
          for (const pathname of ['/readyz', '/api/roles']) {
            const res = await fetch(`${url}${pathname}`, { headers: { authorization: `Bearer ${token}` } }).catch(
              () => undefined,
            );
            statuses.push(res?.status ?? 0);
            await res?.arrayBuffer();
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();

      const seed = await command('dist/src/seed/cli.js', [], env);
      assert.equal(seed.code, 0, seed.output);
      assert.match(seed.output, /The database already has data; nothing was added/);
      assert.doesNotMatch(seed.output, /stopping the embedded PostgreSQL/);
      const limits = await command('dist/src/limits/cli.js', ['--company', 'Acme Agency', '--per-token', '5000'], env);
      assert.equal(limits.code, 0, limits.output);
      assert.match(limits.output, /per token: +5000 points per \d+ s \(its own\)/);
      const reset = await command('dist/src/seed/cli.js', ['--reset'], env);
      assert.equal(reset.code, 1, reset.output);
      assert.match(
        reset.output,
        new RegExp(
          `A service \\(pid ${child.pid}\\) is running on the database in .*; stop it before \`npm run seed -- --reset\` empties that database\\.`,
        ),
      );

      polling = false;
      await poller;
      assert.ok(statuses.length >= 4, String(statuses.length));
      assert.deepEqual([...new Set(statuses)], [200], 'every answer while the commands ran was 200');
      assert.equal(serverPid(), server, 'the same PostgreSQL runs on');
      process.kill(Number(server), 0); // and it is alive
      const ready = await fetch(`${url}/readyz`);
      assert.equal(ready.status, 200);
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(shared, { recursive: true, force: true });
    }
  });
});
