import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually, type Received, Receiver } from './helpers/receiver.js';

// Ordering per subject: a webhook with `ordering: subject` receives the
// deliveries about one agent (call, campaign, contact) one at a time, in the
// order of their events, even while they are attempted concurrently across
// subjects; a failing delivery holds back its own subject only.

const AGENTS = 8;
const UPDATES = 6;
let app: TestApp;
let receiver: Receiver;
let owner: string;

before(async () => {
  app = await startTestApp({ WEBHOOK_RETRY_DELAYS: '300ms,300ms,300ms,300ms' });
  receiver = await new Receiver().start();
  owner = await app.login('owner@acme.test');
});
after(async () => {
  await receiver.close();
  await app.close();
});

const nameOf = (request: Received) => JSON.parse(request.body).data.name as string;

describe('ordering per subject', () => {
  it("delivers each agent's updates in order, concurrently across agents; a failing one holds back only its agent", async () => {
    const hook = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: 'Ordered', url: `${receiver.url}/ordered`, events: ['agent.updated'], ordering: 'subject' },
    });
    assert.equal(hook.status, 201, hook.text);
    assert.equal(hook.body.data.ordering, 'subject');
    const agents: string[] = [];
    for (let i = 0; i < AGENTS; i++)
      agents.push(
        (await app.request('POST', '/api/agents', { token: owner, body: { name: `Ordered ${i}` } })).body.data.id,
      );

    // Agent 0's first update fails twice before it is taken; every answer takes a few milliseconds.
    const answered: Array<{ request: Received; status: number; ends: number }> = [];
    let failures = 0;
    receiver.answer = (request) => {
      const status = nameOf(request) === 'A0-0' && failures < 2 ? (failures++, 500) : 200;
      const delayMs = 2 + Math.floor(Math.random() * 10);
      answered.push({ request, status, ends: request.at + delayMs });
      return { status, delayMs };
    };
    // Each agent's updates one after the other; the agents' updates of a round at once, so that deliveries of
    // different agents are due together however slowly the machine takes the writes.
    for (let k = 0; k < UPDATES; k++)
      await Promise.all(
        agents.map(async (agent, i) => {
          const res = await app.request('PUT', `/api/agents/${agent}`, { token: owner, body: { name: `A${i}-${k}` } });
          assert.equal(res.status, 200, res.text);
        }),
      );
    await eventually(
      async () => (answered.filter((a) => a.status === 200).length >= AGENTS * UPDATES ? true : undefined),
      30_000,
      'every update delivered',
    );

    for (let i = 0; i < AGENTS; i++) {
      const mine = answered.filter((a) => nameOf(a.request).startsWith(`A${i}-`));
      // In order: each update is sent only once the one before it was taken, and never again after.
      const sent = mine.map((a) => Number(nameOf(a.request).split('-')[1]));
      assert.deepEqual(
        sent,
        [...sent].sort((a, b) => a - b),
        `agent ${i} got ${sent.join(',')}`,
      );
      assert.deepEqual(
        mine.filter((a) => a.status === 200).map((a) => nameOf(a.request)),
        Array.from({ length: UPDATES }, (_, k) => `A${i}-${k}`),
      );
    }
    assert.equal(failures, 2);
    // The failing update held back its agent only: other agents' updates were delivered while it waited for its retry.
    const firstFailure = answered.find((a) => a.status === 500)!.request.at;
    const taken = answered.find((a) => nameOf(a.request) === 'A0-0' && a.status === 200)!.request.at;
    assert.ok(
      answered.some((a) => !nameOf(a.request).startsWith('A0-') && a.request.at > firstFailure && a.request.at < taken),
      'no other agent was delivered while agent 0 waited',
    );
    // And it is not one at a time for the whole webhook: attempts of different agents overlapped.
    const overlapped = answered.some((a, i) =>
      answered.some((b, j) => i !== j && b.request.at >= a.request.at && b.request.at < a.ends),
    );
    assert.ok(overlapped, 'attempts never overlapped');
    const [{ keys }] = await app.sql(
      'SELECT count(DISTINCT order_key)::int AS keys FROM webhook_deliveries WHERE webhook_id = $1',
      [hook.body.data.id],
    );
    assert.equal(keys, AGENTS);
  });

  it('refuses an unknown ordering, naming the field and what it takes', async () => {
    const res = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: 'Bad order', url: `${receiver.url}/x`, events: ['agent.updated'], ordering: 'fifo' },
    });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.errors.ordering, [
      'The ordering field does not accept "fifo"; it accepts "none" or "subject".',
    ]);
  });
});
