import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { toBase64Id } from '../src/kernel/ids.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually, Receiver } from './helpers/receiver.js';

// Operator events, caused by real endpoints failing on loopback: a watcher
// webhook subscribed to them receives each, verified with standardwebhooks;
// the webhook an event is about never receives it, even when subscribed; the
// Notices list (REST and GraphQL) serves them. The failing clock is moved
// back with SQL, as time would move it, so the 50 % and 90 % marks of the
// default five-day window are reached by the next real failure.

const OPERATOR = ['webhook.failing', 'webhook.disabled', 'webhook.recovered', 'delivery.exhausted'];
let app: TestApp;
let owner: string;
let watcher: Receiver;
let watch: { id: number; secret: string };

before(async () => {
  app = await startTestApp({ WEBHOOK_RETRY_DELAYS: '200ms,200ms,200ms,200ms', WEBHOOK_TIMEOUT: '2s' });
  owner = await app.login('owner@acme.test');
  watcher = await new Receiver().start();
  watch = await createHook('On call', watcher.url, OPERATOR);
});
after(async () => {
  await watcher.close();
  await app.close();
});

async function createHook(title: string, url: string, events: string[]): Promise<{ id: number; secret: string }> {
  const res = await app.request('POST', '/api/webhooks', { token: owner, body: { title, url, events } });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

const createAgent = (name: string) => app.request('POST', '/api/agents', { token: owner, body: { name } });
const fromWatcher = () =>
  watcher.received
    .filter((r) => JSON.parse(r.body).webhook_id === String(watch.id))
    .map((r) => ({ ...JSON.parse(r.body), headers: r.headers, raw: r.body }));
const about = (webhookId: number, event: string) =>
  fromWatcher().filter((p) => p.event === event && p.data.webhook_id === String(webhookId));
/** Waits for the watcher to receive `count` events of the type about the webhook, and checks each signature. */
async function told(webhookId: number, event: string, count = 1) {
  const got = await eventually(
    async () => (about(webhookId, event).length >= count ? about(webhookId, event) : undefined),
    20_000,
    `${event} about ${webhookId}`,
  );
  for (const payload of got)
    assert.ok(new StandardWebhook(watch.secret).verify(payload.raw, payload.headers as Record<string, string>));
  return got;
}
/** The events of the notices still open about a webhook, over REST and GraphQL alike. */
async function openAbout(webhookId: number): Promise<string[]> {
  const rest = await app.request('GET', `/api/webhooks/notices?webhook_id=${webhookId}&open=true&per_page=100`, {
    token: owner,
  });
  assert.equal(rest.status, 200, rest.text);
  const gql = await app.graphql(
    'query($id: ID) { webhookNotices(webhookId: $id, open: true, perPage: 100) { records { event } } }',
    { id: String(webhookId) },
    owner,
  );
  const events = rest.body.data.records.map((n: { event: string }) => n.event);
  assert.deepEqual(
    gql.body.data.webhookNotices.records.map((n: { event: string }) => n.event.replace('_', '.')),
    events,
  );
  return events;
}
const storedAbout = async (webhookId: number, type: string) =>
  (
    await app.sql<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE type = $1 AND $2 = ANY(subjects)', [
      type,
      `webhook:${webhookId}`,
    ])
  )[0].n;
/** Waits until every attempt of the webhook's deliveries so far has finished and been recorded. */
const settled = (webhookId: number, attempts: number) =>
  eventually(
    async () => {
      const [row] = await app.sql<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id ' +
          'WHERE d.webhook_id = $1 AND a.finished_at IS NOT NULL',
        [webhookId],
      );
      return row.n >= attempts ? true : undefined;
    },
    20_000,
    `${attempts} attempts recorded`,
  );

describe('operator events', () => {
  it('tells once at 50 % and once at 90 % of the disable window, then that the webhook was switched off; never the webhook itself', async () => {
    const down = await new Receiver().start();
    down.answer = () => ({ status: 503 });
    try {
      // Subscribed to the operator events too: it must never get one about itself.
      const hook = await createHook('Down', down.url, ['agent.created', ...OPERATOR]);
      await app.sql("UPDATE webhooks SET failing_since = now() - interval '2 days 13 hours' WHERE id = $1", [hook.id]);
      await createAgent('Half way');
      const [half] = await told(hook.id, 'webhook.failing');
      const [{ ms: since }] = await app.sql(
        'SELECT floor(extract(epoch FROM failing_since) * 1000)::bigint AS ms FROM webhooks WHERE id = $1',
        [hook.id],
      );
      assert.deepEqual(
        { ...half.data, failing_since: undefined, disable_at: undefined },
        {
          webhook_id: String(hook.id),
          title: 'Down',
          url: down.url,
          percent: 50,
          last_status_code: 503,
          last_error: null,
          contact: null,
          failing_since: undefined,
          disable_at: undefined,
        },
      );
      assert.equal(half.data.failing_since, new Date(Number(since)).toISOString());
      assert.equal(
        Date.parse(half.data.disable_at) - Date.parse(half.data.failing_since),
        5 * 86_400_000,
        'switched off five days after the failures began',
      );

      // Every later failure before the next mark tells nothing new: a second agent's five attempts all fail.
      await createAgent('Still half way');
      await settled(hook.id, 10);
      assert.equal(await storedAbout(hook.id, 'webhook.failing'), 1, 'the 50 % notice is sent once');

      await app.sql("UPDATE webhooks SET failing_since = now() - interval '4 days 12 hours' WHERE id = $1", [hook.id]);
      await createAgent('Nine tenths');
      const nineTenths = await told(hook.id, 'webhook.failing', 2);
      assert.deepEqual(nineTenths.map((p) => p.data.percent).sort(), [50, 90]);

      await app.sql("UPDATE webhooks SET failing_since = now() - interval '5 days 1 hour' WHERE id = $1", [hook.id]);
      await createAgent('Too long');
      const [off] = await told(hook.id, 'webhook.disabled');
      assert.equal(off.data.reason, 'failing');
      assert.equal(off.data.title, 'Down');
      assert.ok(Date.parse(off.data.disabled_at) > Date.parse(off.data.failing_since));
      assert.equal((await app.request('GET', `/api/webhooks/${hook.id}`, { token: owner })).body.data.active, false);
      assert.equal(await storedAbout(hook.id, 'webhook.disabled'), 1);

      // It got agent.created attempts only: none of the operator events about itself.
      assert.ok(down.received.length >= 11);
      assert.deepEqual([...new Set(down.received.map((r) => JSON.parse(r.body).event))], ['agent.created']);
      const [{ n: toItself }] = await app.sql(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND event <> 'agent.created'",
        [hook.id],
      );
      assert.equal(toItself, 0);
      // Nor would a replay send them: they are not missing for it.
      const since1h = new Date(Date.now() - 3_600_000).toISOString();
      const preview = await app.request('GET', `/api/webhooks/${hook.id}/missing-events?since=${since1h}`, {
        token: owner,
      });
      assert.equal(preview.status, 200, preview.text);
      assert.equal(preview.body.data.count, 0);

      // The notices about it, newest first, over REST (each id form) and GraphQL.
      // (Its deliveries' schedules that ran out are told too, as delivery.exhausted.)
      const [{ n: aboutIt }] = await app.sql<{ n: number }>(
        'SELECT count(*)::int AS n FROM events WHERE $1 = ANY(subjects)',
        [`webhook:${hook.id}`],
      );
      assert.ok(aboutIt >= 4);
      for (const id of [String(hook.id), toBase64Id(hook.id), app.running.services.ids.encrypt('webhook', hook.id)]) {
        const notices = await app.request(
          'GET',
          `/api/webhooks/notices?webhook_id=${encodeURIComponent(id)}&per_page=100`,
          { token: owner },
        );
        assert.equal(notices.status, 200, notices.text);
        const told = notices.body.data.records.filter((n: any) => n.event !== 'delivery.exhausted');
        assert.deepEqual(
          told.map((n: any) => [n.event, n.data.percent ?? n.data.reason]),
          [
            ['webhook.disabled', 'failing'],
            ['webhook.failing', 90],
            ['webhook.failing', 50],
          ],
        );
        assert.equal(notices.body.data.pagination.total, aboutIt);
        assert.ok(notices.body.data.records.every((n: any) => n.data.webhook_id === String(hook.id)));
      }
      const gql = await app.graphql(
        'query($id: ID) { webhookNotices(webhookId: $id, perPage: 100) { records { event data } pagination { total } } }',
        { id: String(hook.id) },
        owner,
      );
      assert.deepEqual(
        gql.body.data.webhookNotices.records.map((n: any) => n.event).filter((e: string) => e !== 'delivery_exhausted'),
        ['webhook_disabled', 'webhook_failing', 'webhook_failing'],
      );
      // Open now: that it is off (the failing notices are told of by that one) and its deliveries that ran out.
      assert.deepEqual([...new Set(await openAbout(hook.id))].sort(), ['delivery.exhausted', 'webhook.disabled']);
      // Re-enabling starts the clock and the notices over.
      await app.request('PUT', `/api/webhooks/${hook.id}`, { token: owner, body: { active: true } });
      assert.ok(
        !(await openAbout(hook.id)).includes('webhook.disabled'),
        'the notice that it is off ends when it is on again',
      );
      assert.deepEqual(
        (await app.sql('SELECT failing_since, failing_notified FROM webhooks WHERE id = $1', [hook.id]))[0],
        { failing_since: null, failing_notified: 0 },
      );
      await app.request('PUT', `/api/webhooks/${hook.id}`, { token: owner, body: { active: false } });
    } finally {
      await down.close();
    }
  });

  it('tells that a webhook announced as failing answers again, and says nothing of a failure never announced', async () => {
    const flaky = await new Receiver().start();
    let failing = true;
    flaky.answer = () => ({ status: failing ? 500 : 200 });
    try {
      const announced = await createHook('Flaky', `${flaky.url}/announced`, ['agent.created']);
      const blip = await createHook('Blip', `${flaky.url}/blip`, ['agent.created']);
      await app.sql("UPDATE webhooks SET failing_since = now() - interval '3 days' WHERE id = $1", [announced.id]);
      await createAgent('Recovering');
      await told(announced.id, 'webhook.failing');
      assert.ok((await openAbout(announced.id)).includes('webhook.failing'));
      await settled(blip.id, 1);
      failing = false;
      const [back] = await told(announced.id, 'webhook.recovered');
      // The failing notice ends with the recovery, which is open for a day.
      assert.deepEqual(await openAbout(announced.id), ['webhook.recovered']);
      assert.equal(back.data.title, 'Flaky');
      assert.ok(Date.parse(back.data.recovered_at) > Date.parse(back.data.failing_since));
      assert.ok(Date.now() - Date.parse(back.data.failing_since) > 2.9 * 86_400_000, 'the failing clock as it was');
      assert.deepEqual(
        (await app.sql('SELECT failing_since, failing_notified FROM webhooks WHERE id = $1', [announced.id]))[0],
        { failing_since: null, failing_notified: 0 },
      );
      // The blip failed once and then succeeded too: its clock is cleared without a word.
      await eventually(
        async () =>
          (await app.sql('SELECT failing_since FROM webhooks WHERE id = $1', [blip.id]))[0].failing_since === null
            ? true
            : undefined,
        20_000,
        'the blip cleared',
      );
      assert.equal(await storedAbout(blip.id, 'webhook.recovered'), 0);
      assert.equal(await storedAbout(blip.id, 'webhook.failing'), 0);
      for (const id of [announced.id, blip.id])
        await app.request('PUT', `/api/webhooks/${id}`, { token: owner, body: { active: false } });
    } finally {
      await flaky.close();
    }
  });

  it('tells that a delivery failed its last attempt, with the schedule of a resend too; never for a delivery of an operator event', async () => {
    const down = await new Receiver().start();
    down.answer = (request) => ({ status: request.path === '/timeout' ? 502 : 500 });
    try {
      const hook = await createHook('Exhausting', `${down.url}/exhausting`, ['agent.created']);
      // A second failing webhook subscribed to delivery.exhausted: its own exhausted delivery of one tells nobody.
      const relay = await createHook('Failing relay', `${down.url}/timeout`, ['delivery.exhausted']);
      await createAgent('Never delivered');
      const [exhausted] = await told(hook.id, 'delivery.exhausted');
      const [delivery] = await app.sql(
        "SELECT id, event_id, status, attempt_count FROM webhook_deliveries WHERE webhook_id = $1 AND event = 'agent.created'",
        [hook.id],
      );
      assert.equal(delivery.status, 'failed');
      assert.deepEqual(exhausted.data, {
        webhook_id: String(hook.id),
        title: 'Exhausting',
        url: `${down.url}/exhausting`,
        delivery_id: delivery.id,
        event: 'agent.created',
        event_id: delivery.event_id,
        attempts: 5,
        last_status_code: 500,
        last_error: null,
        contact: null,
      });

      // A resend's schedule runs out too: told again, after ten attempts in all.
      assert.equal(
        (await app.request('POST', `/api/webhooks/deliveries/${delivery.id}/resend`, { token: owner })).status,
        202,
      );
      const both = await told(hook.id, 'delivery.exhausted', 2);
      assert.deepEqual(
        both.map((p) => p.data.attempts).sort((a, b) => a - b),
        [5, 10],
      );
      assert.deepEqual(await openAbout(hook.id), ['delivery.exhausted', 'delivery.exhausted']);
      // Resent once the receiver answers: the delivery succeeds, and the notices of its schedules end.
      down.answer = (request) => ({ status: request.path === '/timeout' ? 502 : 200 });
      assert.equal(
        (await app.request('POST', `/api/webhooks/deliveries/${delivery.id}/resend`, { token: owner })).status,
        202,
      );
      await eventually(
        async () =>
          (await app.sql('SELECT status FROM webhook_deliveries WHERE id = $1', [delivery.id]))[0].status ===
          'succeeded'
            ? true
            : undefined,
        20_000,
        'the resend succeeded',
      );
      assert.deepEqual(await openAbout(hook.id), []);
      assert.equal(
        (await app.request('GET', `/api/webhooks/notices?webhook_id=${hook.id}&per_page=100`, { token: owner })).body
          .data.pagination.total,
        2,
        'without open=true, the history stays',
      );
      down.answer = (request) => ({ status: request.path === '/timeout' ? 502 : 500 });

      // The relay failed every attempt of its delivery.exhausted deliveries; none made another.
      await eventually(
        async () =>
          (
            await app.sql(
              "SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'failed'",
              [relay.id],
            )
          )[0].n >= 2
            ? true
            : undefined,
        20_000,
        'the relay exhausted',
      );
      assert.equal(await storedAbout(relay.id, 'delivery.exhausted'), 0);
      for (const id of [hook.id, relay.id])
        await app.request('PUT', `/api/webhooks/${id}`, { token: owner, body: { active: false } });
    } finally {
      await down.close();
    }
  });

  it('tells that a 410 switched a webhook off, and lists every notice of the company for the page', async () => {
    const gone = await new Receiver().start();
    gone.answer = () => ({ status: 410 });
    try {
      const hook = await createHook('Gone', gone.url, ['agent.created']);
      await createAgent('Gone away');
      const [off] = await told(hook.id, 'webhook.disabled');
      assert.equal(off.data.reason, 'gone');
      assert.equal(off.data.failing_since, null);
      assert.equal(gone.received.length, 1);

      const all = await app.request('GET', '/api/webhooks/notices?per_page=100', { token: owner });
      assert.equal(all.status, 200);
      const [{ n: stored }] = await app.sql(
        "SELECT count(*)::int AS n FROM events WHERE type IN ('webhook.failing', 'webhook.disabled', 'webhook.recovered', 'delivery.exhausted')",
      );
      assert.equal(all.body.data.pagination.total, stored);
      assert.equal(all.body.data.records[0].event, 'webhook.disabled');
      assert.equal(all.body.data.records[0].data.webhook_id, String(hook.id));
      // Every notice the watcher got is in the list, and the other way round.
      const listed = all.body.data.records.map((n: any) => n.id).sort();
      const ids = await app.sql<{ id: string }>(
        'SELECT e.id FROM events e JOIN webhook_deliveries d ON d.event_id = e.id WHERE d.webhook_id = $1 ORDER BY e.id',
        [watch.id],
      );
      assert.deepEqual(
        listed,
        ids.map((r) => r.id),
      );
    } finally {
      await gone.close();
    }
  });

  it("refuses another company's webhook and a malformed id, and a user without view-webhooks", async () => {
    const gamma = await app.login('owner@gamma.test');
    const other = (
      await app.request('POST', '/api/webhooks', {
        token: gamma,
        body: { title: 'Theirs', url: `${watcher.url}/theirs`, events: ['agent.created'] },
      })
    ).body.data.id as number;
    for (const id of [String(other), toBase64Id(other), 'not-an-id!', '987654']) {
      const res = await app.request('GET', `/api/webhooks/notices?webhook_id=${encodeURIComponent(id)}`, {
        token: owner,
      });
      assert.equal(res.status, 404, `${id}: ${res.text}`);
      assert.match(res.body.message, /not found\.$/);
    }
    const nobody = await app.userWith([]);
    assert.equal((await app.request('GET', '/api/webhooks/notices', { token: nobody })).status, 403);
  });
});
