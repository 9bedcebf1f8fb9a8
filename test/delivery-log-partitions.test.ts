import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { encodeTime, ulid } from 'ulid';
import { PARTITIONS_AHEAD_MS, partitionSpanMs } from '../src/webhooks/engine/partitions.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually, Receiver } from './helpers/receiver.js';

// The delivery log partitioned by time (webhooks/engine/partitions.ts): partitions made a week ahead by the workers,
// a delivery, its attempts and its event each in the partition of their time; a span the default partition already
// holds rows of left to it; two processes making them at once; a drop a long transaction holds gives up within
// its lock timeout and leaves everything as it was. The drop past the retention, and what it keeps, are in
// webhooks.test.ts (webhook upkeep).

const DAY = 86_400_000;
const RETENTION = 30 * DAY;
let app: TestApp;
let owner: string;
let receiver: Receiver;

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  receiver = await new Receiver().start();
});
after(async () => {
  await receiver.close();
  await app.close();
});

const partitionOf = async (table: string, key: string, id: string) =>
  (await app.sql<{ part: string }>(`SELECT tableoid::regclass::text AS part FROM ${table} WHERE ${key} = $1`, [id]))[0]
    ?.part;
const dayName = (table: string, ms: number) =>
  `${table}_p${new Date(ms).toISOString().slice(0, 10).replaceAll('-', '')}`;

describe('the delivery log partitioned by time', () => {
  it('has each table partitioned a week ahead, and a delivery, its attempt and its event each in the partition of their time', async () => {
    const partitions = await app.running.services.deliverer.partitions.list();
    const span = partitionSpanMs(RETENTION);
    for (const table of ['webhook_deliveries', 'webhook_attempts', 'events']) {
      const own = partitions.filter((p) => p.table === table);
      assert.ok(own.length >= 2, `${table}: ${JSON.stringify(own)}`);
      assert.ok(own[0].from <= Date.now(), `${table} starts by now`);
      assert.ok(own.at(-1)!.to >= Date.now() + PARTITIONS_AHEAD_MS, `${table} reaches a week ahead`);
      for (const [i, p] of own.entries()) {
        assert.equal(p.to - p.from, span);
        assert.equal(p.name, dayName(table, p.from));
        if (i > 0) assert.equal(p.from, own[i - 1].to, 'no gap between partitions');
      }
    }

    const hook = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: 'Partitioned', url: `${receiver.url}/partitioned`, events: ['agent.created'] },
    });
    assert.equal(hook.status, 201, hook.text);
    const created = await app.graphql('mutation { createAgent(name: "In its partition") { id } }', {}, owner);
    assert.equal(created.status, 200, created.text);
    const [got] = await receiver.waitFor(1, 10_000, (r) => r.path === '/partitioned');
    new StandardWebhook(hook.body.data.secret).verify(got.body, got.headers as Record<string, string>);
    const deliveryId = String(got.headers['webhook-id']);
    const eventId =
      JSON.parse(got.body).event_id ??
      (await app.sql<{ event_id: string }>('SELECT event_id FROM webhook_deliveries WHERE id = $1', [deliveryId]))[0]
        .event_id;
    const now = partitions.find((p) => p.table === 'webhook_deliveries' && p.from <= Date.now() && Date.now() < p.to)!;
    assert.equal(await partitionOf('webhook_deliveries', 'id', deliveryId), now.name);
    await eventually(async () =>
      (await partitionOf('webhook_attempts', 'delivery_id', deliveryId)) ? true : undefined,
    );
    assert.equal(
      await partitionOf('webhook_attempts', 'delivery_id', deliveryId),
      dayName('webhook_attempts', now.from),
    );
    assert.equal(await partitionOf('events', 'id', eventId), dayName('events', now.from));
    // A lookup by id reads one partition.
    const plan = await app.sql<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT * FROM webhook_deliveries WHERE id = '${deliveryId}'`,
    );
    const scanned = plan.map((r) => r['QUERY PLAN']).filter((line) => /on webhook_deliveries_/.test(line));
    assert.equal(scanned.length, 1, plan.map((r) => r['QUERY PLAN']).join('\n'));
  });

  it('leaves a span whose rows the default partition already holds to it, and makes the next', async () => {
    const [{ id: webhookId, company_id: company }] = await app.sql<{ id: number; company_id: number }>(
      'SELECT id, company_id FROM webhooks ORDER BY id LIMIT 1',
    );
    // Twenty days ahead: past the week of partitions made, so the default partition takes it.
    const later = Date.now() + 20 * DAY;
    const id = `msg_${encodeTime(later, 10)}${ulid().slice(10)}`;
    await app.sql(
      `INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, created_at)
       VALUES ($1, $2, $3, 'agent.created', 'succeeded', '{}', now())`,
      [id, webhookId, company],
    );
    await app.sql(
      "INSERT INTO webhook_attempts (delivery_id, number, trigger, attempted_at) VALUES ($1, 1, 'scheduled', now())",
      [id],
    );
    assert.equal(await partitionOf('webhook_deliveries', 'id', id), 'webhook_deliveries_default');

    const made = await app.running.services.deliverer.partitions.prepare(new Date(later), RETENTION);
    // Moving the row would race the engine (a settle waiting on it would find it gone): its span stays the default's.
    assert.ok(
      !made.some((p) => p.table === 'webhook_deliveries' && p.from <= later && later < p.to),
      JSON.stringify(made),
    );
    assert.ok(
      made.some((p) => p.table === 'webhook_deliveries' && p.from > later),
      'the spans after it are made',
    );
    assert.equal(await partitionOf('webhook_deliveries', 'id', id), 'webhook_deliveries_default');
    assert.equal(await partitionOf('webhook_attempts', 'delivery_id', id), 'webhook_attempts_default');
    const read = await app.request('GET', `/api/webhooks/deliveries/${id}`, { token: owner });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.data.attempts.length, 1);
  });

  it('two processes making partitions at once make each once', async () => {
    const when = new Date(Date.now() + 60 * DAY);
    const [a, b] = await Promise.all([
      app.running.services.deliverer.partitions.prepare(when, RETENTION),
      app.running.services.deliverer.partitions.prepare(when, RETENTION),
    ]);
    const names = [...a, ...b].map((p) => p.name);
    assert.ok(names.length > 0);
    assert.equal(new Set(names).size, names.length, 'none made twice');
    const listed = (await app.running.services.deliverer.partitions.list()).map((p) => p.name);
    for (const name of names) assert.ok(listed.includes(name), name);
  });

  it('a drop that a long transaction holds gives up within its lock timeout and changes nothing', async () => {
    const before = await app.running.services.deliverer.partitions.list();
    const holder = new pg.Client({ connectionString: app.running.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      // A long report over the whole log.
      await holder.query(
        'SELECT (SELECT count(*) FROM webhook_attempts), (SELECT count(*) FROM webhook_deliveries), (SELECT count(*) FROM events)',
      );
      const started = Date.now();
      await assert.rejects(
        app.running.services.deliverer.partitions.dropBefore(new Date(Date.now() + 200 * DAY)),
        /lock timeout/,
      );
      assert.ok(Date.now() - started < 10_000);
      assert.deepEqual(await app.running.services.deliverer.partitions.list(), before);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  });
});
