import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { playScenario } from '../src/telco/scenarios.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// agent.performance from real calls: the provider's callbacks finish calls of
// an agent; the event fires when its answer rate or sentiment crosses the
// company's threshold, once per crossing, not per call.

let app: TestApp;
let token: string;
let options: { url: string; accountSid: string; authToken: string; number: string };
let agentId: number;
let hookId: number;

const performanceEvents = async () =>
  (
    await app.sql<{ payload: string }>(
      "SELECT payload FROM webhook_deliveries WHERE webhook_id = $1 AND event = 'agent.performance' ORDER BY created_at, id",
      [hookId],
    )
  )
    .map((r) => JSON.parse(r.payload).data)
    .filter((d) => d.agent_id === String(agentId))
    .map((d) => `${d.metric} ${d.direction} ${d.value} (${d.calls_considered} calls)`);

before(async () => {
  app = await startTestApp();
  token = await app.login('owner@acme.test');
  const account = await app.providerAccount();
  // A fresh agent on a number of its own, so its last 20 calls are these.
  const agent = await app.request('POST', '/api/agents', {
    token,
    body: { name: `Perf ${randomBytes(3).toString('hex')}` },
  });
  agentId = Number(agent.body.data.id);
  const [number] = await app.sql(
    'SELECT id, phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id DESC LIMIT 1',
    [account.companyId],
  );
  await app.sql('UPDATE phone_numbers SET chatbot_agent_id = $1 WHERE id = $2', [agentId, number.id]);
  options = { url: app.url, accountSid: account.sid, authToken: account.authToken, number: number.phone_no };
  const hook = await app.graphql(
    'mutation ($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } } }',
    { input: { title: 'Perf', url: 'http://127.0.0.1:9/perf', events: ['agent_performance'], active: false } },
    token,
  );
  hookId = hook.body.data.createWebhook.webhook.id;
  // Inactive webhooks record nothing: switch it on without a receiver (deliveries stay pending, which is all this test reads).
  await app.sql('UPDATE webhooks SET active = true WHERE id = $1', [hookId]);
});
after(() => app?.close());

describe('agent.performance', () => {
  it('fires once when the answer rate falls below the threshold, and once when it recovers', async () => {
    const thresholds = await app.request('GET', '/api/agents/performance-thresholds', { token });
    assert.deepEqual(thresholds.body.data, { answer_rate: 0.6, average_sentiment: 0 });
    for (let i = 0; i < 5; i++) await playScenario('inbound-call', options);
    assert.deepEqual(await performanceEvents(), [], 'five answered, positive calls: nothing to say');
    // Missed calls pull the rate down: 5 answered of 9 is 0.556 (below 0.6), and it stays below.
    for (let i = 0; i < 6; i++) await playScenario('missed-call', options);
    assert.deepEqual(await performanceEvents(), ['answer_rate below 0.556 (9 calls)']);
    // Answered calls bring it back: 9 of 15 is 0.6, at the threshold, and it stays above.
    for (let i = 0; i < 7; i++) await playScenario('inbound-call', options);
    assert.deepEqual(await performanceEvents(), [
      'answer_rate below 0.556 (9 calls)',
      'answer_rate above 0.6 (15 calls)',
    ]);
  });

  it('follows the threshold the company sets, and refuses one out of range', async () => {
    const set = await app.request('PUT', '/api/agents/performance-thresholds', { token, body: { answer_rate: 0.9 } });
    assert.equal(set.status, 200);
    assert.deepEqual(set.body.data, { answer_rate: 0.9, average_sentiment: 0 });
    await playScenario('inbound-call', options);
    const events = await performanceEvents();
    assert.equal(events.length, 3);
    assert.match(events[2], /^answer_rate below 0\.6\d* \(19 calls\)$/);
    const bad = await app.request('PUT', '/api/agents/performance-thresholds', {
      token,
      body: { answer_rate: 2, average_sentiment: 'high' },
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(Object.keys(bad.body.errors).sort(), ['average_sentiment']);
    const range = await app.request('PUT', '/api/agents/performance-thresholds', { token, body: { answer_rate: 2 } });
    assert.deepEqual(range.body.errors, { answer_rate: ['The answer rate field must be between 0 and 1.'] });
  });
});
