import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { toBase64Id } from '../src/kernel/ids.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { Receiver } from './helpers/receiver.js';

// Replay missing: events that happened while a webhook was inactive, or
// before it subscribed to their type, are kept in the event store and sent
// on request through the normal delivery path, in the order they happened,
// with their own timestamps; the count is shown first; the webhook's filters
// apply; a second run sends nothing new; bad windows and ids change nothing.

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

const agent = async (name: string) =>
  (await app.request('POST', '/api/agents', { token: owner, body: { name } })).body.data.id as number;
const deliveryCount = async (webhookId: number) =>
  (await app.sql('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [webhookId]))[0]
    .n as number;

describe('replay missing', () => {
  it('sends what the webhook never received, in order and with its own time, after showing the count; a second run sends nothing', async () => {
    const since = new Date(Date.now() - 60_000).toISOString();
    const created = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: 'Late', url: `${receiver.url}/late`, events: ['agent.created'], active: false },
    });
    assert.equal(created.status, 201, created.text);
    const hook = created.body.data;

    // While it is inactive and subscribed to agent.created only:
    const ada = await agent('Replay Ada');
    await agent('Replay Bob');
    await app.request('PUT', `/api/agents/${ada}`, { token: owner, body: { name: 'Replay Ada II' } }); // agent.updated
    assert.equal(await deliveryCount(hook.id), 0);
    const stored = await app.sql(
      "SELECT id, type, occurred_at FROM events WHERE type IN ('agent.created', 'agent.updated') AND data->>'name' LIKE 'Replay%' ORDER BY occurred_at, id",
    );
    assert.equal(stored.length, 3, 'every event is kept, delivered or not');

    // Subscribed to both, active, filtering Bob out; a new event goes out as usual.
    const changed = await app.request('PUT', `/api/webhooks/${hook.id}`, {
      token: owner,
      body: {
        active: true,
        events: ['agent.created', 'agent.updated'],
        filters: [{ event: 'agent.created', filter: { path: 'name', ne: 'Replay Bob' } }],
      },
    });
    assert.equal(changed.status, 200, changed.text);
    await agent('Replay Cy');
    await receiver.waitFor(1, 10_000, (r) => r.path === '/late');

    const preview = await app.request(
      'GET',
      `/api/webhooks/${hook.id}/missing-events?since=${encodeURIComponent(since)}`,
      { token: owner },
    );
    assert.equal(preview.status, 200, preview.text);
    assert.deepEqual(
      { count: preview.body.data.count, filtered: preview.body.data.filtered },
      { count: 2, filtered: 1 },
    );
    const gqlPreview = await app.graphql(
      'query($id: ID!, $s: String!) { webhookReplayPreview(id: $id, since: $s) { count filtered } }',
      { id: toBase64Id(hook.id), s: since },
      owner,
    );
    assert.deepEqual(gqlPreview.body.data.webhookReplayPreview, { count: 2, filtered: 1 });
    assert.equal(await deliveryCount(hook.id), 1, 'counting sends nothing');

    const replay = await app.request('POST', `/api/webhooks/${hook.id}/replay-missing`, {
      token: owner,
      body: { since },
    });
    assert.equal(replay.status, 202, replay.text);
    assert.deepEqual(replay.body.data, { count: 2, remaining: 0 });
    const got = await receiver.waitFor(3, 10_000, (r) => r.path === '/late');
    const replayed = got.slice(1).map((r) => ({
      id: String(r.headers['webhook-id']),
      body: new StandardWebhook(hook.secret).verify(r.body, r.headers as Record<string, string>) as {
        event: string;
        timestamp: string;
        data: { name: string };
      },
    }));
    replayed.sort((a, b) => a.id.localeCompare(b.id)); // delivery ids are made in the order the events happened
    assert.deepEqual(
      replayed.map((r) => [r.body.event, r.body.data.name]),
      [
        ['agent.created', 'Replay Ada'],
        ['agent.updated', 'Replay Ada II'],
      ],
    );
    const [adaCreated, , adaUpdated] = stored;
    assert.equal(
      replayed[0].body.timestamp,
      new Date(adaCreated.occurred_at).toISOString(),
      'the event keeps its own time',
    );
    assert.equal(replayed[1].body.timestamp, new Date(adaUpdated.occurred_at).toISOString());
    const rows = await app.sql(
      'SELECT event_id FROM webhook_deliveries WHERE webhook_id = $1 AND event_id IN ($2, $3) ORDER BY id',
      [hook.id, adaCreated.id, adaUpdated.id],
    );
    assert.deepEqual(
      rows.map((r) => r.event_id),
      [adaCreated.id, adaUpdated.id],
    );

    // Idempotent: nothing is missing any more but Bob, whom the filter turns away.
    const again = await app.graphql(
      'mutation($id: ID!, $s: String!) { replayMissingWebhookEvents(id: $id, since: $s) { count remaining } }',
      { id: String(hook.id), s: since },
      owner,
    );
    assert.deepEqual(again.body.data.replayMissingWebhookEvents, { count: 0, remaining: 0 });
    assert.deepEqual(
      (
        await app.request('GET', `/api/webhooks/${hook.id}/missing-events?since=${encodeURIComponent(since)}`, {
          token: owner,
        })
      ).body.data.count,
      0,
    );
    assert.equal(await deliveryCount(hook.id), 3);
  });

  it('ten replays at once send each missing event once', async () => {
    const hook = (
      await app.request('POST', '/api/webhooks', {
        token: owner,
        body: { title: 'Racy', url: `${receiver.url}/racy`, events: ['agent.created'], active: false },
      })
    ).body.data;
    const since = new Date().toISOString(); // after the other tests' agents
    for (let i = 0; i < 5; i++) await agent(`Racy ${i}`);
    await app.request('PUT', `/api/webhooks/${hook.id}`, { token: owner, body: { active: true } });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        app.request('POST', `/api/webhooks/${hook.id}/replay-missing`, { token: owner, body: { since } }),
      ),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(10).fill(202),
    );
    assert.deepEqual(
      answers.map((a) => a.body.data.count).sort(),
      [0, 0, 0, 0, 0, 0, 0, 0, 0, 5],
      'one run sends them all, the others wait for it and find nothing',
    );
    await receiver.waitFor(5, 10_000, (r) => r.path === '/racy');
    assert.equal(await deliveryCount(hook.id), 5);
  });

  it("refuses a bad window, an inactive webhook, another company's or a malformed id, and changes nothing", async () => {
    const hook = (
      await app.request('POST', '/api/webhooks', {
        token: owner,
        body: { title: 'Windows', url: `${receiver.url}/windows`, events: ['agent.created'] },
      })
    ).body.data;
    const now = Date.now();
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{}, 'since', /required/],
      [{ since: 'last week' }, 'since', /ISO 8601/],
      [{ since: new Date(now - 31 * 86_400_000).toISOString() }, 'since', /not be longer than 30 days/],
      [{ since: new Date(now).toISOString(), until: new Date(now - 1000).toISOString() }, 'until', /after since/],
    ];
    for (const [body, field, pattern] of cases) {
      const res = await app.request('POST', `/api/webhooks/${hook.id}/replay-missing`, { token: owner, body });
      assert.equal(res.status, 422, res.text);
      assert.match(res.body.errors[field][0], pattern);
      const query = new URLSearchParams(body as Record<string, string>).toString();
      const preview = await app.request('GET', `/api/webhooks/${hook.id}/missing-events?${query}`, { token: owner });
      assert.equal(preview.status, 422, preview.text);
    }
    await app.request('PUT', `/api/webhooks/${hook.id}`, { token: owner, body: { active: false } });
    const inactive = await app.request('POST', `/api/webhooks/${hook.id}/replay-missing`, {
      token: owner,
      body: { since: new Date(now - 60_000).toISOString() },
    });
    assert.equal(inactive.status, 409, inactive.text);
    assert.match(inactive.body.message, /inactive: activate it/);

    const gamma = await app.login('owner@gamma.test');
    const theirs = (
      await app.request('POST', '/api/webhooks', {
        token: gamma,
        body: { title: 'Theirs', url: `${receiver.url}/theirs`, events: ['agent.created'] },
      })
    ).body.data;
    for (const raw of [
      String(theirs.id),
      toBase64Id(theirs.id),
      app.running.services.ids.encrypt('webhook', theirs.id),
      'not-an-id!',
    ]) {
      for (const [method, path] of [
        ['POST', 'replay-missing'],
        ['GET', 'missing-events?since=2026-11-26T00:00:00Z'],
      ]) {
        const res = await app.request(method, `/api/webhooks/${encodeURIComponent(raw)}/${path}`, {
          token: owner,
          body: method === 'POST' ? { since: '2026-11-26T00:00:00Z' } : undefined,
        });
        assert.equal(res.status, 404, `${method} ${raw}: ${res.text}`);
      }
    }
    for (const form of [String(hook.id), toBase64Id(hook.id), app.running.services.ids.encrypt('webhook', hook.id)]) {
      const res = await app.request(
        'GET',
        `/api/webhooks/${encodeURIComponent(form)}/missing-events?since=${encodeURIComponent(new Date(now - 60_000).toISOString())}`,
        { token: owner },
      );
      assert.equal(res.status, 200, `${form}: ${res.text}`);
    }
    assert.equal(await deliveryCount(hook.id), 0);
  });
});
