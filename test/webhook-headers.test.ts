import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from './helpers/app.js';
import { Receiver } from './helpers/receiver.js';

// A webhook's custom headers: set over GraphQL and REST, sent on every
// attempt to a real receiver beside the signature headers (which still
// verify), a secret value never shown again nor stored in the clear, the
// attempt log naming the headers only, and every bad header refused by field
// with nothing changed.

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

const HOOK_FIELDS = 'webhook { id headers { name value secret } } secret';
const createAgent = (name: string) =>
  app.graphql('mutation($n: String!) { createAgent(name: $n) { id } }', { n: name }, owner);
const storedHeaders = async (id: number) =>
  (await app.sql('SELECT headers FROM webhooks WHERE id = $1', [id]))[0].headers;

describe('custom headers', () => {
  it('are sent on every attempt beside the signature headers; a secret value is sealed and never shown; the attempt log names them', async () => {
    const created = await app.graphql(
      `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { ${HOOK_FIELDS} } }`,
      {
        input: {
          title: 'Gateway',
          url: `${receiver.url}/gateway`,
          events: ['agent_created'],
          headers: [
            { name: 'X-Api-Key', value: 'key-0123456789', secret: true },
            { name: 'X-Team', value: 'calls' },
          ],
        },
      },
      owner,
    );
    assert.equal(created.body.errors, undefined, created.text);
    const hook = { ...created.body.data.createWebhook.webhook, secret: created.body.data.createWebhook.secret };
    assert.deepEqual(hook.headers, [
      { name: 'X-Api-Key', value: null, secret: true },
      { name: 'X-Team', value: 'calls', secret: false },
    ]);
    const stored = JSON.stringify(await storedHeaders(hook.id));
    assert.doesNotMatch(stored, /key-0123456789/, 'the secret value is sealed');

    await createAgent('Header Hal');
    const [delivery] = await receiver.waitFor(1, 10_000, (r) => r.path === '/gateway');
    assert.equal(delivery.headers['x-api-key'], 'key-0123456789');
    assert.equal(delivery.headers['x-team'], 'calls');
    // Tracing is off here (no OTLP endpoint): no trace header, and the outbox row keeps none.
    assert.equal(delivery.headers.traceparent, undefined);
    assert.deepEqual(
      await app.sql('SELECT trace_parent FROM webhook_deliveries WHERE id = $1', [
        String(delivery.headers['webhook-id']),
      ]),
      [{ trace_parent: null }],
    );
    const verified = new StandardWebhook(hook.secret).verify(
      delivery.body,
      delivery.headers as Record<string, string>,
    ) as { event: string };
    assert.equal(verified.event, 'agent.created');

    const id = String(delivery.headers['webhook-id']);
    const log = await app.graphql(
      'query($id: ID!) { webhookDelivery(id: $id) { attempts { number headers } } }',
      { id },
      owner,
    );
    assert.deepEqual(log.body.data.webhookDelivery.attempts, [{ number: 1, headers: ['X-Api-Key', 'X-Team'] }]);
    const rest = await app.request('GET', `/api/webhooks/deliveries/${id}`, { token: owner });
    assert.deepEqual(rest.body.data.attempts[0].headers, ['X-Api-Key', 'X-Team']);
    assert.doesNotMatch(rest.text, /key-0123456789/);
    const viewed = await app.request('GET', `/api/webhooks/${hook.id}`, { token: owner });
    assert.deepEqual(viewed.body.data.headers, [
      { name: 'X-Api-Key', value: null, secret: true },
      { name: 'X-Team', value: 'calls', secret: false },
    ]);
    assert.doesNotMatch(viewed.text, /key-0123456789/);

    // A secret header saved again without a value keeps it; the plain one changes; a header left out is gone.
    const kept = await app.request('PUT', `/api/webhooks/${hook.id}`, {
      token: owner,
      body: {
        headers: [
          { name: 'X-Api-Key', secret: true },
          { name: 'X-Team', value: 'voice' },
        ],
      },
    });
    assert.equal(kept.status, 200, kept.text);
    await createAgent('Header Hana');
    const [, second] = await receiver.waitFor(2, 10_000, (r) => r.path === '/gateway');
    assert.equal(second.headers['x-api-key'], 'key-0123456789');
    assert.equal(second.headers['x-team'], 'voice');
    assert.equal(
      (await app.request('PUT', `/api/webhooks/${hook.id}`, { token: owner, body: { headers: [] } })).status,
      200,
    );
    assert.deepEqual(await storedHeaders(hook.id), []);
    await createAgent('Header Hugo');
    const [, , third] = await receiver.waitFor(3, 10_000, (r) => r.path === '/gateway');
    assert.equal(third.headers['x-api-key'], undefined);
    const updatedWithout = await app.graphql(
      'mutation($id: ID!) { updateWebhook(id: $id, input: { title: "Gateway 2" }) { headers { name } } }',
      { id: String(hook.id) },
      owner,
    );
    assert.deepEqual(updatedWithout.body.data.updateWebhook.headers, [], 'left out: kept as they are');
  });

  it('refuses what a webhook may not send, naming the field, and changes nothing', async () => {
    const created = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: {
        title: 'Strict',
        url: `${receiver.url}/strict`,
        events: ['agent.created'],
        headers: [{ name: 'X-Keep', value: 'kept' }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const before = await storedHeaders(id);
    const cases: Array<[unknown[], string, RegExp]> = [
      [[{ name: 'webhook-id', value: 'x' }], 'headers.0.name', /sets itself \(webhook-id\)/],
      [[{ name: 'X-Webhook-Event', value: 'x' }], 'headers.0.name', /sets itself/],
      [[{ name: 'Content-Type', value: 'text/plain' }], 'headers.0.name', /sets itself/],
      [[{ name: 'Host', value: 'evil.example' }], 'headers.0.name', /sets itself/],
      [[{ name: 'Transfer-Encoding', value: 'chunked' }], 'headers.0.name', /sets itself/],
      [[{ name: 'User-Agent', value: 'me' }], 'headers.0.name', /sets itself/],
      [[{ name: 'Bad Name', value: 'x' }], 'headers.0.name', /HTTP header name/],
      [
        [
          { name: 'X-A', value: 'x' },
          { name: 'x-a', value: 'y' },
        ],
        'headers.1.name',
        /repeats/,
      ],
      [[{ name: 'X-Split', value: 'a\r\nX-Injected: 1' }], 'headers.0.value', /line breaks/],
      [[{ name: 'X-Long', value: 'v'.repeat(1025) }], 'headers.0.value', /1024 characters/],
      [[{ name: 'X-New-Secret', secret: true }], 'headers.0.value', /required/],
      [[{ name: '', value: 'x' }], 'headers.0.name', /required/],
      [Array.from({ length: 11 }, (_, i) => ({ name: `X-H${i}`, value: 'v' })), 'headers', /more than 10/],
    ];
    for (const [headers, field, pattern] of cases) {
      const res = await app.request('PUT', `/api/webhooks/${id}`, {
        token: owner,
        body: { title: 'Changed', headers },
      });
      assert.equal(res.status, 422, JSON.stringify(headers));
      assert.match(res.body.errors?.[field]?.[0] ?? '', pattern, `${field}: ${res.text}`);
    }
    assert.deepEqual(await storedHeaders(id), before);
    assert.equal((await app.sql('SELECT title FROM webhooks WHERE id = $1', [id]))[0].title, 'Strict');
    const gql = await app.graphql(
      'mutation($id: ID!) { updateWebhook(id: $id, input: { headers: [{ name: "Host", value: "x" }] }) { id } }',
      { id: String(id) },
      owner,
    );
    assert.deepEqual(Object.keys(gql.body.errors[0].extensions.errors), ['headers.0.name']);
  });
});
