import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.js';

// Agenda on the PostgreSQL job store (the default), and on MongoDB where
// MONGODB_URL is set.

async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function purgeRunsOn(app: TestApp): Promise<void> {
  await app.sql(
    "INSERT INTO revoked_tokens (jti, expires_at) VALUES ('old', now() - interval '1 hour'), ('live', now() + interval '1 hour')",
  );
  await app.running.jobs.agenda.now('purge-expired-auth');
  await eventually(
    async () => (await app.sql("SELECT count(*)::int AS n FROM revoked_tokens WHERE jti = 'old'"))[0].n === 0,
  );
  assert.equal(
    (await app.sql("SELECT count(*)::int AS n FROM revoked_tokens WHERE jti = 'live'"))[0].n,
    1,
    'unexpired revocations stay',
  );
}

describe('jobs on PostgreSQL', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('schedules the hourly purge in the application database', async () => {
    const rows = await app.sql("SELECT name, repeat_interval FROM agenda_jobs WHERE name = 'purge-expired-auth'");
    assert.equal(rows.length, 1);
    assert.equal(rows[0].repeat_interval, '1 hour');
  });

  it('runs a job: expired revocations are purged', async () => {
    await purgeRunsOn(app);
  });
});

describe('jobs on MongoDB', {
  skip: process.env.MONGODB_URL ? false : 'MONGODB_URL is not set on this machine',
}, () => {
  it('reports ready and runs the purge with the MongoDB job store', async () => {
    const app = await startTestApp({ MONGODB_URL: process.env.MONGODB_URL! });
    try {
      const ready = await app.request('GET', '/readyz');
      assert.deepEqual(ready.body.checks, { database: 'ok', jobs: 'ok' });
      await purgeRunsOn(app);
    } finally {
      await app.close();
    }
  });

  it('times webhook retries with the MongoDB job store', async () => {
    const { Receiver, eventually } = await import('./helpers/receiver.js');
    const app = await startTestApp({
      MONGODB_URL: process.env.MONGODB_URL!,
      WEBHOOK_RETRY_DELAYS: '300ms,300ms,300ms,300ms',
    });
    const receiver = await new Receiver().start();
    receiver.answer = (_r, i) => ({ status: i === 0 ? 500 : 200 });
    try {
      const owner = await app.login('owner@acme.test');
      const hook = await app.request('POST', '/api/webhooks', {
        token: owner,
        body: { title: 'Mongo', url: receiver.url, events: ['agent.created'] },
      });
      await app.graphql('mutation { createAgent(name: "Mongo timed") { id } }', {}, owner);
      const got = await receiver.waitFor(2, 15_000);
      assert.deepEqual(
        got.map((r) => r.headers['x-webhook-attempt']),
        ['1', '2'],
      );
      await eventually(async () => {
        const [row] = await app.sql(
          "SELECT status FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'",
          [hook.body.data.id],
        );
        return row;
      });
    } finally {
      await receiver.close();
      await app.close();
    }
  });
});
