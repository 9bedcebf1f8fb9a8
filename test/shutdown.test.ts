import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';

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

describe('npm start on a fresh data folder, then SIGTERM', () => {
  it('serves on embedded PostgreSQL, prints a login, finishes the in-flight request and leaves no process behind', async () => {
    const child = spawn(process.execPath, ['dist/src/main.js'], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const [, url] = await waitForLine(child, /running \(all\) at (http:\/\/\S+)[\s\S]*owner@acme\.test/, 60_000);
    assert.notEqual(postgresProcesses(), '', 'embedded PostgreSQL runs under the data folder');

    const { port } = new URL(url);
    const body = JSON.stringify({ email: 'owner@acme.test', password: 'switchboard' });
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let response = '';
    socket.on('data', (chunk) => (response += chunk.toString()));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(`POST /api/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
    socket.write(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 200));

    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.write(body.slice(10));
    await closed;
    assert.match(response, /^HTTP\/1\.1 200 /, response);
    assert.match(response, /"message":"Login successful"/);

    assert.equal(await exited, 0);
    assert.equal(postgresProcesses(), '', 'no PostgreSQL process left behind');
  });
});
