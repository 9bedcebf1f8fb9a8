import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient, type Client } from 'graphql-ws';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import WebSocket from 'ws';
import { EVENT_NAMES } from '../src/events/catalog.js';
import { graphqlName } from '../src/kernel/vocabulary.js';
import { playScenario, playSmsScenario } from '../src/telco/scenarios.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually, Receiver } from './helpers/receiver.js';
import { liveEventViolation } from './helpers/contract.js';

// Every event, each caused by a real operation (the provider's signed
// callbacks played by the simulator's scenarios, the API, and endpoints that
// fail), arriving at a real receiver signed (checked with standardwebhooks and
// svix) and on a live subscription, in the order they happened.

let app: TestApp;
let receiver: Receiver;
let client: Client;
let down: Receiver;
let gone: Receiver;

before(async () => {
  app = await startTestApp({
    WEBHOOK_RETRY_DELAYS: '100ms,100ms,100ms,100ms',
    TELCO_SIM_TIME_SCALE: '0.01',
    DIALER_TICK: '50ms',
  });
  receiver = await new Receiver().start();
  down = await new Receiver().start();
  gone = await new Receiver().start();
});
after(async () => {
  await client?.dispose();
  await Promise.all([receiver?.close(), down?.close(), gone?.close()]);
  await app?.close();
});

describe('every event from a real operation', () => {
  it("every event type reaches the receiver, verified, and the subscription; a call's in the order they happened", async () => {
    const token = await app.login('owner@acme.test');
    const hook = (
      await app.request('POST', '/api/webhooks', {
        token,
        body: { title: 'Everything', url: `${receiver.url}/all`, events: [...EVENT_NAMES], list_selection: 'All' },
      })
    ).body.data;
    const live: Array<{ type: string; data: Record<string, unknown> }> = [];
    client = createClient({
      url: `${app.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    client.subscribe<{ events: { type: string; data: Record<string, unknown> } }>(
      { query: 'subscription { events { id type occurredAt data contact } }' },
      { next: (m) => m.data && live.push(m.data.events), error: () => undefined, complete: () => undefined },
    );
    await eventually(async () => (app.running.services.live.size === 1 ? true : undefined), 5000, 'the subscription');

    // Agents: created, updated, switched online; a fresh one answers a number of its own.
    const agent = (await app.request('POST', '/api/agents', { token, body: { name: 'Every Event Ava' } })).body.data;
    await app.request('PUT', `/api/agents/${agent.id}`, { token, body: { name: 'Every Event Ava II' } });
    await app.request('PUT', `/api/agents/${agent.id}/status`, { token, body: { online: true } });
    const account = await app.providerAccount();
    const [number] = await app.sql(
      'SELECT id, phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id DESC LIMIT 1',
      [account.companyId],
    );
    await app.sql('UPDATE phone_numbers SET chatbot_agent_id = $1 WHERE id = $2', [agent.id, number.id]);
    const options = { url: app.url, accountSid: account.sid, authToken: account.authToken, number: number.phone_no };

    // Calls (with a booking and a transfer), then a miss that pulls the answer rate under a strict threshold.
    await app.request('PUT', '/api/agents/performance-thresholds', { token, body: { answer_rate: 0.9 } });
    const transferred = await playScenario('transfer', options);
    await playScenario('inbound-call', { ...options, book: true });
    for (let i = 0; i < 2; i++) await playScenario('outbound-call', options);
    await playScenario('missed-call', options);
    // SMS, both fates and a reply.
    await playSmsScenario('sms-exchange', {
      url: app.url,
      accountSid: account.sid,
      authToken: account.authToken,
      bearer: token,
    });
    await playSmsScenario('sms-failed', {
      url: app.url,
      accountSid: account.sid,
      authToken: account.authToken,
      bearer: token,
      contact: '+14155550199',
    });
    // A campaign with a lead.
    const campaign = (await app.request('POST', '/api/campaigns', { token, body: { name: 'Everything' } })).body.data;
    await app.request('POST', `/api/campaigns/${campaign.id}/start`, { token });
    await app.request('POST', '/api/leads', {
      token,
      body: { phone_number: '+14155550155', campaign_id: String(campaign.id), source: 'test' },
    });
    await app.request('POST', `/api/campaigns/${campaign.id}/complete`, { token });
    // A campaign paused, resumed and canceled; one dialed by the dialer to its end (lead.called, then completed).
    const controlled = (await app.request('POST', '/api/campaigns', { token, body: { name: 'Controlled' } })).body.data;
    for (const step of ['start', 'pause', 'resume', 'cancel'])
      await app.request('POST', `/api/campaigns/${controlled.id}/${step}`, { token });
    const dialed = (
      await app.request('POST', '/api/campaigns', {
        token,
        body: { name: 'Dialed', dialing: { hours_start: '00:00', hours_end: '24:00' } },
      })
    ).body.data;
    await app.request('POST', `/api/campaigns/${dialed.id}/leads`, {
      token,
      body: { leads: [{ phone_number: '+14155550166', variables: { plan: 'gold' } }] },
    });
    await app.request('POST', `/api/campaigns/${dialed.id}/start`, { token });

    // Operator events: a webhook failing for over half of its window (webhook.failing) fails all five
    // attempts of a delivery (delivery.exhausted), then answers a resend (webhook.recovered); another
    // endpoint answers 410 (webhook.disabled).
    down.answer = () => ({ status: 500 });
    gone.answer = () => ({ status: 410 });
    const failing = (
      await app.request('POST', '/api/webhooks', {
        token,
        body: { title: 'Down', url: `${down.url}/down`, events: ['agent.created'] },
      })
    ).body.data;
    await app.request('POST', '/api/webhooks', {
      token,
      body: { title: 'Gone', url: `${gone.url}/gone`, events: ['agent.created'] },
    });
    await app.sql("UPDATE webhooks SET failing_since = now() - interval '3 days' WHERE id = $1", [failing.id]);
    await app.request('POST', '/api/agents', { token, body: { name: 'Watched by operators' } });
    const exhausted = await eventually(
      async () =>
        (
          await app.sql("SELECT id FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'failed'", [failing.id])
        )[0],
      20_000,
      'the delivery exhausted',
    );
    down.answer = () => ({ status: 200 });
    assert.equal((await app.request('POST', `/api/webhooks/deliveries/${exhausted.id}/resend`, { token })).status, 202);

    const received = await receiver.waitFor(
      EVENT_NAMES.length,
      20_000,
      (r) => JSON.parse(r.body).webhook_id === String(hook.id),
    );
    await eventually(
      async () =>
        new Set(receiver.received.map((r) => JSON.parse(r.body).event)).size === EVENT_NAMES.length ? true : undefined,
      20_000,
      'every event type at the receiver',
    );
    for (const request of receiver.received) {
      const headers = request.headers as Record<string, string>;
      assert.ok(new StandardWebhook(hook.secret).verify(request.body, headers));
      assert.doesNotThrow(() => new SvixWebhook(hook.secret).verify(request.body, headers));
    }
    assert.ok(received.length >= EVENT_NAMES.length);
    await eventually(
      async () => (new Set(live.map((e) => e.type)).size === EVENT_NAMES.length ? true : undefined),
      10_000,
      'every event type on the subscription',
    );
    // Every live event fits its message in asyncapi.json.
    assert.deepEqual(live.map(liveEventViolation).filter(Boolean), []);
    const ended = live.find((e) => e.type === 'call_ended')!;
    assert.match(
      liveEventViolation({ ...ended, data: { ...ended.data, call_duration: '184' } })!,
      /call_duration/,
      'the check catches a wrong type',
    );
    assert.match(
      liveEventViolation({ ...ended, data: { ...ended.data, extra: 1 } })!,
      /additional/,
      'and a field the document does not name',
    );
    // GraphQL names each event type by its enum name (call_ended for call.ended).
    assert.deepEqual([...new Set(live.map((e) => e.type))].sort(), EVENT_NAMES.map(graphqlName).sort());

    // One call's events, on the subscription, in the order they happened.
    const [call] = await app.sql('SELECT id FROM calls WHERE provider_call_id = $1', [transferred]);
    assert.deepEqual(
      live.filter((e) => e.data.call_id === String(call.id)).map((e) => e.type),
      ['call_started', 'call_answered', 'call_transferred', 'call_ended'],
    );
  });
});
