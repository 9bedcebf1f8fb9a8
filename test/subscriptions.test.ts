import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/observability/logger.js';
import { startService, type Running } from '../src/platform/runtime.js';
import { playScenario } from '../src/telco/scenarios.js';
import { telcoSignature } from '../src/telco/signature.js';
import { startTestApp, type TestApp, TEST_API_LIMITS } from './helpers/app.js';
import { eventually, sleep } from './helpers/receiver.js';

// Live events over GraphQL subscriptions (graphql-ws on /graphql): the same
// events webhooks deliver, scoped to the company, authenticated at
// connection, capped per connection, and reaching a second service instance
// on the same database through LISTEN/NOTIFY.

let app: TestApp;
let second: Running;
let options: { url: string; accountSid: string; authToken: string; number: string };
const clients: Client[] = [];

const connect = (baseUrl: string, token?: string) => {
  const client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
  });
  clients.push(client);
  return client;
};

/** Subscribes; collects what arrives and how it ended. */
function collect(client: Client, query: string) {
  const received: Array<{ type: string; data: Record<string, unknown>; contact: Record<string, unknown> | null }> = [];
  const state: { error?: unknown; done: boolean } = { done: false };
  const stop = client.subscribe<{ events: (typeof received)[number] }>(
    { query },
    {
      next: (message) => {
        if (message.data) received.push(message.data.events);
        if (message.errors) state.error = message.errors;
      },
      error: (error) => (state.error = error),
      complete: () => (state.done = true),
    },
  );
  return { received, state, stop };
}

before(async () => {
  app = await startTestApp();
  const account = await app.providerAccount();
  const [number] = await app.sql('SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1', [
    account.companyId,
  ]);
  options = { url: app.url, accountSid: account.sid, authToken: account.authToken, number: number.phone_no };
  // A second API instance on the same database: its subscribers hear only what NOTIFY tells it.
  second = await startService(
    loadConfig({
      ...TEST_API_LIMITS,
      NODE_ENV: 'test',
      DATABASE_URL: app.running.databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      JWT_SECRET: app.config.jwtSecret,
      APP_KEY: app.config.appKey.toString('base64'),
      LOG_LEVEL: 'silent',
      PROCESS_ROLE: 'api',
    }),
    createLogger('silent'),
  );
});
after(async () => {
  for (const client of clients) await client.dispose();
  await second?.stop();
  await app?.close();
});

describe('GraphQL subscriptions', () => {
  it("a call's events arrive live, filtered by type, on both instances; another company hears nothing", async () => {
    const token = await app.login('owner@acme.test');
    const gamma = await app.login('owner@gamma.test');
    const query = 'subscription { events(types: [call_started, call_ended]) { type data contact } }';
    const here = collect(connect(app.url, token), query);
    const there = collect(connect(second.url, token), query);
    const other = collect(connect(app.url, gamma), 'subscription { events { type } }');
    await eventually(
      async () => (app.running.services.live.size === 2 && second.services.live.size === 1 ? true : undefined),
      5000,
      'the subscriptions to register',
    );

    const sid = await playScenario('inbound-call', options);
    const [call] = await app.sql('SELECT id FROM calls WHERE provider_call_id = $1', [sid]);
    for (const sub of [here, there]) {
      await eventually(async () => (sub.received.length >= 2 ? true : undefined), 5000, 'two live events');
      assert.deepEqual(
        sub.received.map((e) => e.type),
        ['call_started', 'call_ended'],
        'in order, answered filtered out',
      );
      assert.equal(sub.received[1].data.call_id, String(call.id));
      assert.equal(sub.received[1].data.call_status, 'completed');
      assert.equal(sub.received[0].contact?.phone_number, '+14155550123');
    }
    await sleep(200);
    assert.deepEqual(other.received, [], 'Gamma hears nothing of Acme');
    here.stop();
    await eventually(
      async () => (app.running.services.live.size === 1 ? true : undefined),
      5000,
      'the subscription to end',
    );
  });

  it('each event is a type of its own with typed details, from the same catalog as the webhook payloads', async () => {
    const token = await app.login('owner@acme.test');
    const sub = collect(
      connect(app.url, token),
      `subscription {
      events(types: [call_ended, call_analyzed]) {
        __typename type
        ... on CallEndedEvent { details { callId callDuration callStatus callDirection tags customFields sentiment } }
        ... on CallAnalyzedEvent { details { callId summary successful customAnalysis analyzedAt } }
      } }`,
    );
    await eventually(async () => (app.running.services.live.size >= 1 ? true : undefined), 5000, 'the subscription');
    const sid = await playScenario('inbound-call', { ...options, book: true });
    const [call] = await app.sql('SELECT id FROM calls WHERE provider_call_id = $1', [sid]);
    await eventually(async () => (sub.received.length >= 2 ? true : undefined), 5000, 'both events');
    const [ended, analyzed] = sub.received as unknown as Array<{
      __typename: string;
      type: string;
      details: Record<string, unknown>;
    }>;
    assert.equal(ended.__typename, 'CallEndedEvent');
    assert.deepEqual(ended.details, {
      callId: String(call.id),
      callDuration: 184,
      callStatus: 'completed',
      callDirection: 'inbound',
      tags: ['appointment'],
      customFields: {},
      sentiment: 'positive',
    });
    assert.equal(analyzed.__typename, 'CallAnalyzedEvent');
    assert.equal(analyzed.details.successful, true);
    assert.deepEqual(analyzed.details.customAnalysis, { new_patient: true, insurance_provider: 'Delta Dental' });
    // A field of another event type is not a field of this one: the document is refused.
    const wrong = collect(
      connect(app.url, token),
      'subscription { events { ... on CallEndedEvent { details { summary } } } }',
    );
    await eventually(async () => (wrong.state.error ? true : undefined), 5000, 'the refusal');
    assert.match(JSON.stringify(wrong.state.error), /Cannot query field \\"summary\\" on type \\"CallEndedData\\"/);
    sub.stop();
  });

  it('an event too large for NOTIFY (a long transcript) still arrives whole, through the event log', async () => {
    const token = await app.login('owner@acme.test');
    const sub = collect(connect(second.url, token), 'subscription { events(types: [call_ended]) { type data } }');
    await eventually(async () => (second.services.live.size >= 1 ? true : undefined), 5000, 'the subscription');
    const url = `${app.url}/api/telco/voice/status`;
    const transcript = `Agent: ${'word '.repeat(2000)}`;
    const params = {
      AccountSid: options.accountSid,
      CallSid: `CA${'ab'.repeat(16)}`,
      From: '+14155550123',
      To: options.number,
      Direction: 'inbound',
      CallStatus: 'completed',
      CallDuration: '61',
      Transcription: transcript,
    };
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-telco-signature': telcoSignature(url, params, options.authToken),
      },
      body: new URLSearchParams(params).toString(),
    });
    assert.equal(response.status, 204);
    await eventually(async () => (sub.received.length >= 1 ? true : undefined), 5000, 'the large event');
    assert.equal(sub.received[0].data.transcription, transcript);
    assert.equal(
      (await app.sql("SELECT count(*)::int AS n FROM event_log WHERE type = 'call.ended'"))[0].n,
      1,
      'only the large event went through the log',
    );
    sub.stop();
  });

  it('refuses a connection without a valid token, a subscription without view-webhooks, an unknown type, and the eleventh on one connection', async () => {
    const anonymous = collect(connect(app.url), 'subscription { events { type } }');
    await eventually(async () => (anonymous.state.error ? true : undefined), 5000, 'the refusal');
    assert.equal((anonymous.state.error as { code?: number }).code, 4403);
    const forged = collect(connect(app.url, 'not.a.token'), 'subscription { events { type } }');
    await eventually(async () => (forged.state.error ? true : undefined), 5000, 'the refusal');

    const noPermission = collect(
      connect(app.url, await app.userWith(['view-role'], 'no live')),
      'subscription { events { type } }',
    );
    await eventually(async () => (noPermission.state.error ? true : undefined), 5000, 'the refusal');
    assert.match(JSON.stringify(noPermission.state.error), /This action is unauthorized/);

    const client = connect(app.url, await app.login('owner@acme.test'));
    const unknown = collect(client, 'subscription { events(types: [call_exploded]) { type } }');
    await eventually(async () => (unknown.state.error ? true : undefined), 5000, 'the refusal');
    assert.match(JSON.stringify(unknown.state.error), /call_exploded.{0,8} does not exist in .{0,8}WebhookEvent/);

    const many = Array.from({ length: 11 }, () => collect(client, 'subscription { events { type } }'));
    await eventually(async () => (many[10].state.error ? true : undefined), 5000, 'the eleventh refused');
    assert.match(JSON.stringify(many[10].state.error), /at most 10 subscriptions/);
    assert.ok(many.slice(0, 10).every((s) => !s.state.error));
  });

  it('an instance announces events only while some instance has a subscriber, and learns it through NOTIFY', async () => {
    for (const client of clients.splice(0)) await client.dispose();
    await eventually(
      async () => (app.running.services.live.size === 0 && second.services.live.size === 0 ? true : undefined),
      5000,
      'every subscription to end',
    );
    await eventually(
      async () => (!app.running.services.live.wanted && !second.services.live.wanted ? true : undefined),
      5000,
      'both to learn nobody listens',
    );

    const token = await app.login('owner@acme.test');
    const sub = collect(connect(second.url, token), 'subscription { events(types: [call_started]) { type data } }');
    await eventually(
      async () => (app.running.services.live.wanted ? true : undefined),
      5000,
      'the first instance to learn of the subscriber on the second',
    );
    const sid = await playScenario('missed-call', options);
    const [call] = await app.sql('SELECT id FROM calls WHERE provider_call_id = $1', [sid]);
    await eventually(
      async () => (sub.received.some((e) => e.data.call_id === String(call.id)) ? true : undefined),
      5000,
      'the event on the second instance',
    );
  });
});
