import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { encodeTime, ulid } from 'ulid';
import { CLAIM, ENGINE_SESSION } from '../src/webhooks/engine/claim.js';
import { WINDOW_MARGIN_MS, windowStatement } from '../src/webhooks/engine/due-window.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually, Receiver } from './helpers/receiver.js';

// The claims and the settles within the due window (webhooks/engine/due-window.ts): the delivery log's partitions
// behind today that hold no work are left out of the engine's statements, and work is still found wherever it is:
// a delivery due in a partition behind today, one older than every partition (the default partition holds it), a
// finished one resent, and a retry of one behind today on its schedule; each delivered, signed and recorded.

const DAY = 86_400_000;
const RETRY_MS = 1000;
let app: TestApp;
let owner: string;
let receiver: Receiver;
let hook: { id: number; secret: string };
/** The delivery the others are copied from (a real one, as the outbox made it). */
let model: string;
const today = Math.floor(Date.now() / DAY) * DAY;
/** Two partitions behind today's, of four days each, as the retention job leaves them after a while. */
const behind = [
  { from: today - 16 * DAY, to: today - 12 * DAY },
  { from: today - 12 * DAY, to: today - 8 * DAY },
];
const key = (ms: number) => `msg_${encodeTime(ms, 10)}`;
const idAt = (ms: number) => `msg_${encodeTime(ms, 10)}${ulid().slice(10)}`;
const name = (table: string, ms: number) => `${table}_p${new Date(ms).toISOString().slice(0, 10).replaceAll('-', '')}`;

before(async () => {
  app = await startTestApp({ WEBHOOK_RETRY_DELAYS: `${RETRY_MS}ms,${RETRY_MS}ms,${RETRY_MS}ms,${RETRY_MS}ms` });
  owner = await app.login('owner@acme.test');
  receiver = await new Receiver().start();
  await app.running.services.deliverer.partitions.prepare(new Date(), 30 * DAY);
  for (const table of ['webhook_deliveries', 'webhook_attempts'])
    for (const p of behind)
      await app.sql(
        `CREATE TABLE "${name(table, p.from)}" PARTITION OF ${table} FOR VALUES FROM ('${key(p.from)}') TO ('${key(p.to)}')`,
      );
  const created = await app.request('POST', '/api/webhooks', {
    token: owner,
    body: { title: 'Window', url: `${receiver.url}/window`, events: ['agent.created'] },
  });
  assert.equal(created.status, 201, created.text);
  hook = created.body.data;
  assert.equal((await app.request('POST', '/api/agents', { token: owner, body: { name: 'Model' } })).status, 201);
  const [got] = await receiver.waitFor(1);
  model = got.headers['webhook-id'] as string;
});
after(async () => {
  await receiver.close();
  await app.close();
});

/** A copy of the model delivery under `id`, as the state given. */
const copy = (id: string, state: 'due' | 'later' | 'succeeded' | 'in flight') =>
  app.sql(
    `INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, attempt_count, final_attempt,
       next_attempt_at, next_trigger, created_at, event_id, lease_token, in_flight_until)
     SELECT $2, webhook_id, company_id, event, CASE WHEN $3 = 'succeeded' THEN 'succeeded' ELSE 'pending' END, payload,
       CASE WHEN $3 IN ('due', 'later') THEN 0 ELSE 1 END, 5,
       CASE WHEN $3 = 'due' THEN now() WHEN $3 = 'later' THEN now() + interval '1 hour' END, 'scheduled', now(), event_id,
       CASE WHEN $3 = 'in flight' THEN nextval('webhook_lease_seq') END,
       CASE WHEN $3 = 'in flight' THEN now() + interval '1 hour' END
     FROM webhook_deliveries WHERE id = $1`,
    [model, id, state],
  );
const partitionOf = async (id: string) =>
  (
    await app.sql<{ part: string }>('SELECT tableoid::regclass::text AS part FROM webhook_deliveries WHERE id = $1', [
      id,
    ])
  )[0].part;
const attemptsOf = (id: string) =>
  app.sql<{ number: number; status_code: number | null; attempted_at: Date }>(
    'SELECT number, status_code, attempted_at FROM webhook_attempts WHERE delivery_id = $1 ORDER BY number',
    [id],
  );
/** The requests for delivery `id`, each checked with the webhook's secret. */
const receivedFor = (id: string) => {
  const got = receiver.received.filter((r) => r.headers['webhook-id'] === id);
  for (const r of got) new StandardWebhook(hook.secret).verify(r.body, r.headers as Record<string, string>);
  return got;
};
/** Waits until `holds` is true. */
const until = (holds: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) =>
  eventually(async () => ((await holds()) ? true : undefined), timeoutMs, what);
/** Where the window begins as the rows have it (null: a day before now). */
const oldest = async () =>
  (
    await app.sql<{ oldest: string | null }>(
      windowStatement(
        (await app.running.services.deliverer.partitions.list()).filter((p) => p.table === 'webhook_deliveries'),
      ),
    )
  )[0].oldest;

describe('claims within the due window', () => {
  it('begins where the oldest partition with work begins, or a day back; the claim reads no partition outside it', async () => {
    const first = await oldest();
    assert.ok(first === null || first >= key(today), `no work behind today: ${first}`);
    // The claim as the engine prepares it, with the window a day either side of now: partitions behind it are left out.
    const engine = new pg.Client({ connectionString: app.running.databaseUrl, options: ENGINE_SESSION });
    await engine.connect();
    try {
      await engine.query(`PREPARE claim(int, int, float8, text, text) AS ${CLAIM}`);
      const window = `'${key(Date.now() - WINDOW_MARGIN_MS)}', '${key(Date.now() + WINDOW_MARGIN_MS)}'`;
      await engine.query('BEGIN');
      const { rows } = await engine.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE claim(4, 32, 30, ${window})`);
      await engine.query('ROLLBACK');
      const read = new Set<string>();
      const walk = (node: { 'Relation Name'?: string; Plans?: unknown[] }) => {
        if (node['Relation Name']?.startsWith('webhook_deliveries')) read.add(node['Relation Name']);
        for (const child of node.Plans ?? []) walk(child as typeof node);
      };
      walk(rows[0]['QUERY PLAN'][0].Plan);
      assert.ok(read.size > 0, 'the claim reads the deliveries');
      for (const p of behind) assert.ok(!read.has(name('webhook_deliveries', p.from)), [...read].join(', '));
      assert.ok(read.has(name('webhook_deliveries', today)), [...read].join(', '));
    } finally {
      await engine.end();
    }

    // Work in flight behind today may come due again: the window reaches back to its partition.
    const flying = idAt(behind[1].from + DAY);
    await copy(flying, 'in flight');
    assert.equal(await oldest(), key(behind[1].from));
    // Work to come due in an older partition moves it further back; work in the default partition, to its own id.
    const later = idAt(behind[0].from + DAY);
    const older = idAt(today - 60 * DAY);
    try {
      await copy(later, 'later');
      assert.equal(await oldest(), key(behind[0].from));
      await copy(older, 'later');
      assert.equal(await partitionOf(older), 'webhook_deliveries_default');
      assert.equal(await oldest(), older);
    } finally {
      await app.sql('DELETE FROM webhook_deliveries WHERE id = ANY ($1)', [[flying, later, older]]);
    }
    assert.equal(await oldest(), null);
  });

  it('delivers, signs and records a delivery due in a partition behind today, and one older than every partition', async () => {
    const due = idAt(behind[0].from + DAY);
    const older = idAt(today - 60 * DAY);
    await copy(due, 'due');
    await copy(older, 'due');
    assert.equal(await partitionOf(due), name('webhook_deliveries', behind[0].from));
    for (const id of [due, older]) {
      await until(() => receivedFor(id).length === 1, `${id} received`);
      await until(
        async () =>
          (await app.sql('SELECT status FROM webhook_deliveries WHERE id = $1', [id]))[0].status === 'succeeded',
        `${id} recorded`,
      );
      const attempts = await attemptsOf(id);
      assert.deepEqual(
        attempts.map((a) => [a.number, a.status_code]),
        [[1, 200]],
      );
    }
  });

  it('sends a finished delivery behind today again when it is resent', async () => {
    const done = idAt(behind[1].from + DAY);
    await copy(done, 'succeeded');
    const resent = await app.request('POST', `/api/webhooks/deliveries/${done}/resend`, { token: owner });
    assert.equal(resent.status, 202, resent.text);
    await until(() => receivedFor(done).length === 1, 'the resend received');
    await until(async () => (await attemptsOf(done)).some((a) => a.status_code === 200), 'the resend recorded');
    assert.equal((await app.sql('SELECT status FROM webhook_deliveries WHERE id = $1', [done]))[0].status, 'succeeded');
  });

  it('retries a delivery behind today on its schedule', async () => {
    const failing = idAt(behind[0].from + 2 * DAY);
    let asked = 0;
    receiver.answer = (request) =>
      request.headers['webhook-id'] === failing && asked++ === 0 ? { status: 500 } : { status: 200 };
    try {
      await copy(failing, 'due');
      await until(() => receivedFor(failing).length === 2, 'the retry received', 15_000).catch(async (error) => {
        const [row] = await app.sql(
          'SELECT status, attempt_count, next_attempt_at FROM webhook_deliveries WHERE id = $1',
          [failing],
        );
        throw new Error(`${error.message}: the delivery is ${JSON.stringify(row)}`);
      });
      const [first, second] = receivedFor(failing);
      const waited = second.at - first.at;
      assert.ok(waited >= RETRY_MS - 50, `retried after ${waited} ms, before its schedule (${RETRY_MS} ms)`);
      await until(
        async () => (await attemptsOf(failing)).length === 2 && (await attemptsOf(failing))[1].status_code === 200,
        'the retry recorded',
      );
      assert.deepEqual(
        (await attemptsOf(failing)).map((a) => a.status_code),
        [500, 200],
      );
    } finally {
      receiver.answer = () => ({ status: 200, body: 'ok' });
    }
  });
});
