import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { appWithReceiver } from './helpers/app-with-receiver.js';
import { sleep } from './helpers/receiver.js';

// A webhook's deliveries and their attempts go with it, whoever deletes it
// (docs/adr/0074-delivery-tables-without-foreign-keys.md: the delivery tables
// have no foreign keys; triggers cascade, and a lock of the company's webhooks
// keeps a write and a deletion of a webhook it reads apart). The races are made certain by
// triggers of this test's database that make one side slow.

const fixture = appWithReceiver();

const createHook = async (title: string) => {
  const res = await fixture.app.request('POST', '/api/webhooks', {
    token: fixture.owner,
    body: { title, url: fixture.receiver.url, events: ['agent.created'] },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as number;
};
const deleteHook = async (id: number) => {
  const res = await fixture.app.request('DELETE', `/api/webhooks/${id}`, { token: fixture.owner });
  assert.equal(res.status, 200, res.text);
};
const createAgent = async (name: string) => {
  const res = await fixture.app.request('POST', '/api/agents', { token: fixture.owner, body: { name } });
  assert.equal(res.status, 201, res.text);
};
const count = async (sql: string, params: unknown[] = []) =>
  (await fixture.app.sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params))[0].n;
/** Deliveries whose webhook is gone, and attempts whose delivery is gone: none, ever. */
const orphans = async () => ({
  deliveries: await count('webhook_deliveries d WHERE NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id)'),
  attempts: await count(
    'webhook_attempts a WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id)',
  ),
});

describe('deleting a webhook', () => {
  it('through the API takes its deliveries and their attempts', async () => {
    const id = await createHook('Deleted with its deliveries');
    const from = fixture.receiver.received.length;
    for (let i = 0; i < 3; i++) await createAgent(`Delivered ${i}`);
    await fixture.receiver.waitFor(from + 3);
    assert.equal(await count('webhook_deliveries WHERE webhook_id = $1', [id]), 3);
    assert.ok((await count('webhook_attempts')) >= 3);
    await deleteHook(id);
    assert.equal(await count('webhook_deliveries WHERE webhook_id = $1', [id]), 0);
    assert.deepEqual(await orphans(), { deliveries: 0, attempts: 0 });
  });

  it("by an operator's SQL takes them too", async () => {
    const id = await createHook('Deleted by SQL');
    const from = fixture.receiver.received.length;
    await createAgent('Delivered before SQL');
    await fixture.receiver.waitFor(from + 1);
    await fixture.app.sql('DELETE FROM webhooks WHERE id = $1', [id]);
    assert.equal(await count('webhook_deliveries WHERE webhook_id = $1', [id]), 0);
    assert.deepEqual(await orphans(), { deliveries: 0, attempts: 0 });
  });

  it('while a write that read it is committing waits for the write, and its delivery goes too', async () => {
    const id = await createHook('Deleted during a write');
    // The write's event is stored slowly: the deletion comes after the write has read the webhook, before it commits.
    await fixture.app.sql(`CREATE FUNCTION slow_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(0.6); RETURN NEW; END $$`);
    await fixture.app.sql(
      `CREATE TRIGGER slow_event BEFORE INSERT ON events FOR EACH ROW WHEN (NEW.data->>'name' = 'Slow write') EXECUTE FUNCTION slow_event()`,
    );
    try {
      const write = createAgent('Slow write');
      await sleep(250);
      await deleteHook(id);
      await write;
      assert.equal(await count("agents WHERE name = 'Slow write'"), 1, 'the write committed');
      assert.equal(await count('webhook_deliveries WHERE webhook_id = $1', [id]), 0);
      assert.deepEqual(await orphans(), { deliveries: 0, attempts: 0 });
    } finally {
      await fixture.app.sql('DROP TRIGGER slow_event ON events');
      await fixture.app.sql('DROP FUNCTION slow_event()');
    }
  });

  it('while the engine settles its delivery: the deletion waits for the settle, and both go through', async () => {
    const id = await createHook('Deleted during a settle');
    // The settle of this webhook's delivery is slow once it holds the delivery, before it gives back the endpoint's
    // slot: the deletion comes in that moment.
    await fixture.app.sql(`CREATE FUNCTION slow_settle() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(0.6); RETURN NEW; END $$`);
    await fixture.app.sql(
      `CREATE TRIGGER slow_settle BEFORE UPDATE ON webhook_deliveries FOR EACH ROW
        WHEN (NEW.webhook_id = ${id} AND NEW.status = 'succeeded') EXECUTE FUNCTION slow_settle()`,
    );
    try {
      const from = fixture.receiver.received.length;
      await createAgent('Settled during a deletion');
      await fixture.receiver.waitFor(from + 1);
      await sleep(200);
      await deleteHook(id);
      assert.equal(await count('webhook_deliveries WHERE webhook_id = $1', [id]), 0);
      assert.equal(await count('webhook_counters WHERE webhook_id = $1', [id]), 0);
      assert.deepEqual(await orphans(), { deliveries: 0, attempts: 0 });
    } finally {
      await fixture.app.sql('DROP TRIGGER slow_settle ON webhook_deliveries');
      await fixture.app.sql('DROP FUNCTION slow_settle()');
    }
  });

  it('while a write reads it: the write waits, and makes no delivery for the deleted webhook', async () => {
    const kept = await createHook('Kept beside a deletion');
    const id = await createHook('Slow deletion');
    await fixture.app.sql(`CREATE FUNCTION slow_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(0.6); RETURN OLD; END $$`);
    await fixture.app.sql(
      `CREATE TRIGGER slow_delete BEFORE DELETE ON webhooks FOR EACH ROW WHEN (OLD.title = 'Slow deletion') EXECUTE FUNCTION slow_delete()`,
    );
    try {
      const deletion = deleteHook(id);
      await sleep(250);
      const from = fixture.receiver.received.length;
      await createAgent('Written during a deletion');
      await deletion;
      await fixture.receiver.waitFor(from + 1);
      assert.equal(
        await count('webhook_deliveries WHERE webhook_id = $1', [kept]),
        1,
        'the other webhook got its delivery',
      );
      assert.equal(await count('webhook_deliveries WHERE webhook_id = $1', [id]), 0);
      assert.deepEqual(await orphans(), { deliveries: 0, attempts: 0 });
    } finally {
      await fixture.app.sql('DROP TRIGGER slow_delete ON webhooks');
      await fixture.app.sql('DROP FUNCTION slow_delete()');
      await deleteHook(kept);
    }
  });
});
