import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { loadConfig } from '../src/config/config.js';
import { toBase64Id } from '../src/kernel/ids.js';
import { createLogger } from '../src/observability/logger.js';
import { startService, type Running } from '../src/platform/runtime.js';
import { playScenario } from '../src/telco/scenarios.js';
import { postCallback } from './helpers/callbacks.js';
import { startTestApp, type TestApp, TEST_API_LIMITS } from './helpers/app.js';
import { eventually, sleep } from './helpers/receiver.js';

// Live transcripts: the provider's signed turn callbacks, kept once each
// (ten repeats at once add one turn), reaching a callTranscript subscriber
// on another API instance of the same database, in order; never a webhook
// event; another company's call, or no permission, is refused.

let app: TestApp;
let second: Running;
let account: { sid: string; authToken: string; companyId: number };
let ours: string;
const clients: Client[] = [];

before(async () => {
  app = await startTestApp();
  account = await app.providerAccount();
  [{ phone_no: ours }] = await app.sql('SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1', [
    account.companyId,
  ]);
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
      DATABASE_POOL_SIZE: '4',
    }),
    createLogger('silent'),
  );
});
after(async () => {
  for (const client of clients) await client.dispose();
  await second?.stop();
  await app?.close();
});

const callback = async (kind: 'status' | 'transcript', params: Record<string, string>) =>
  (await postCallback(app.url, account.authToken, `/api/telco/voice/${kind}`, params)).status;

/** A call from `from` to our number, started and answered by the provider's callbacks. */
async function callInProgress(from: string) {
  const sid = `CA${randomBytes(16).toString('hex')}`;
  const call = { AccountSid: account.sid, CallSid: sid, From: from, To: ours, Direction: 'inbound' };
  for (const status of ['initiated', 'in-progress'])
    assert.equal(await callback('status', { ...call, CallStatus: status }), 204);
  return { sid, call };
}

function subscribe(baseUrl: string, token: string, callId: string, after?: number) {
  const client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  clients.push(client);
  const turns: Array<{ sequence: number; speaker: string; text: string }> = [];
  const state: { error?: unknown } = {};
  client.subscribe<{ callTranscript: (typeof turns)[number] }>(
    {
      query:
        'subscription($id: ID!, $after: Int) { callTranscript(callId: $id, after: $after) { sequence speaker text } }',
      variables: { id: callId, after },
    },
    {
      next: (m) => (m.data ? turns.push(m.data.callTranscript) : (state.error = m.errors)),
      error: (e) => (state.error = e),
      complete: () => undefined,
    },
  );
  return { turns, state, client };
}

describe('live transcripts', () => {
  it('with after, sends first the turns kept after that sequence, then each new one, each once; a bad after is refused', async () => {
    const token = await app.login('owner@acme.test');
    const { sid, call } = await callInProgress('+14155550144');
    const said = [
      { sequence: 0, speaker: 'agent', text: 'Hello, this is Ava.' },
      { sequence: 1, speaker: 'caller', text: 'I would like a cleaning.' },
      { sequence: 2, speaker: 'agent', text: 'Tuesday at 3 pm works.' },
    ];
    const say = async (turn: (typeof said)[number]) =>
      assert.equal(
        await callback('transcript', {
          ...call,
          Sequence: String(turn.sequence),
          Speaker: turn.speaker,
          Text: turn.text,
        }),
        204,
      );
    for (const turn of said.slice(0, 2)) await say(turn);
    const [{ id }] = await app.sql('SELECT id FROM calls WHERE provider_call_id = $1', [sid]);
    // On the other instance: the turns so far come from the database, the new one by its announcement.
    const all = subscribe(second.url, token, toBase64Id(id), -1);
    const later = subscribe(second.url, token, toBase64Id(id), 0);
    const fresh = subscribe(second.url, token, toBase64Id(id));
    await eventually(
      async () => (all.turns.length >= 2 && later.turns.length >= 1 ? true : undefined),
      5000,
      'the turns so far',
    );
    await eventually(async () => (second.services.live.size >= 3 ? true : undefined), 5000, 'the subscriptions');
    await say(said[2]);
    await eventually(async () => (fresh.turns.length >= 1 ? true : undefined), 5000, 'the new turn');
    // Past the second look at the turns kept (a second after subscribing): nothing is sent twice.
    await sleep(1500);
    assert.deepEqual(all.turns, said);
    assert.deepEqual(later.turns, said.slice(1));
    assert.deepEqual(fresh.turns, said.slice(2));
    for (const sub of [all, later, fresh]) assert.equal(sub.state.error, undefined);

    const refused = subscribe(second.url, token, toBase64Id(id), -2);
    await eventually(async () => (refused.state.error ? true : undefined), 5000, 'the refusal');
    assert.match(
      JSON.stringify(refused.state.error),
      /after must be -1 \(every turn\) or a turn's sequence \(0 or more\), got -2/,
    );
    assert.deepEqual(refused.turns, []);
    assert.equal(await callback('status', { ...call, CallStatus: 'completed', CallDuration: '20' }), 204);
    for (const sub of [all, later, fresh, refused]) await sub.client.dispose();
    await eventually(async () => (second.services.live.size === 0 ? true : undefined), 5000, 'the subscriptions ended');
  });

  it('each turn reaches a subscriber on another instance once and in order; ten repeats of a turn add nothing', async () => {
    const token = await app.login('owner@acme.test');
    const { sid, call } = await callInProgress('+14155550142');
    const [{ id }] = await app.sql('SELECT id FROM calls WHERE provider_call_id = $1', [sid]);
    const sub = subscribe(second.url, token, toBase64Id(id));
    await eventually(async () => (second.services.live.size === 1 ? true : undefined), 5000, 'the subscription');

    assert.equal(
      await callback('transcript', { ...call, Sequence: '0', Speaker: 'agent', Text: 'Hello, how can I help?' }),
      204,
    );
    const repeats = await Promise.all(
      Array.from({ length: 10 }, () =>
        callback('transcript', { ...call, Sequence: '1', Speaker: 'caller', Text: 'I need a cleaning.' }),
      ),
    );
    assert.deepEqual(repeats, Array(10).fill(204));
    assert.equal(
      await callback('transcript', { ...call, Sequence: '2', Speaker: 'agent', Text: 'Tuesday at 3 pm?' }),
      204,
    );
    await eventually(async () => (sub.turns.length >= 3 ? true : undefined), 5000, 'three turns');
    await sleep(200);
    assert.deepEqual(sub.turns, [
      { sequence: 0, speaker: 'agent', text: 'Hello, how can I help?' },
      { sequence: 1, speaker: 'caller', text: 'I need a cleaning.' },
      { sequence: 2, speaker: 'agent', text: 'Tuesday at 3 pm?' },
    ]);
    const soFar = await app.graphql(
      'query($id: ID!) { callTranscriptTurns(callId: $id) { sequence speaker text } }',
      { id: String(id) },
      token,
    );
    assert.deepEqual(soFar.body.data.callTranscriptTurns, sub.turns);
    // Listed live while in progress, for its own company only; gone once it ends.
    const listed = async (t: string) =>
      (await app.graphql('{ liveCalls { id status } }', {}, t)).body.data.liveCalls.map((c: { id: number }) => c.id);
    assert.ok((await listed(token)).includes(id));
    assert.ok(!(await listed(await app.login('owner@gamma.test'))).includes(id));
    assert.equal(await callback('status', { ...call, CallStatus: 'completed', CallDuration: '20' }), 204);
    assert.ok(!(await listed(token)).includes(id));
    const events = await app.sql<{ type: string }>('SELECT type FROM events WHERE $1 = ANY(subjects) ORDER BY id', [
      `call:${id}`,
    ]);
    assert.deepEqual(
      events.map((e) => e.type),
      ['call.started', 'call.answered', 'call.ended'],
      'turns are not webhook events',
    );
  });

  it("the simulator plays a call turn by turn; another company's call and a user without view-ai-dashboard are refused", async () => {
    const sid = await playScenario('live-call', {
      url: app.url,
      accountSid: account.sid,
      authToken: account.authToken,
      number: ours,
    });
    const [{ id }] = await app.sql('SELECT id FROM calls WHERE provider_call_id = $1', [sid]);
    const owner = await app.login('owner@acme.test');
    const turns = await app.graphql(
      'query($id: ID!) { callTranscriptTurns(callId: $id) { sequence speaker } }',
      { id: String(id) },
      owner,
    );
    assert.deepEqual(
      turns.body.data.callTranscriptTurns.map((t: { speaker: string }) => t.speaker),
      ['agent', 'caller', 'agent', 'caller'],
    );

    const gamma = await app.login('owner@gamma.test');
    const theirs = await app.graphql(
      'query($id: ID!) { callTranscriptTurns(callId: $id) { sequence } }',
      { id: String(id) },
      gamma,
    );
    assert.equal(theirs.body.errors[0].extensions.code, 'NOT_FOUND');
    const refused = subscribe(app.url, gamma, String(id));
    await eventually(async () => (refused.state.error ? true : undefined), 5000, 'the refusal');
    assert.match(JSON.stringify(refused.state.error), /Call not found/);
    const nobody = await app.userWith([]);
    const denied = subscribe(app.url, nobody, String(id));
    await eventually(async () => (denied.state.error ? true : undefined), 5000, 'the refusal');
    assert.match(JSON.stringify(denied.state.error), /FORBIDDEN/);
    for (const bad of ['not-an-id', '99999999']) {
      const res = await app.graphql(
        'query($id: ID!) { callTranscriptTurns(callId: $id) { sequence } }',
        { id: bad },
        owner,
      );
      assert.equal(res.body.errors[0].extensions.code, 'NOT_FOUND', bad);
    }
  });
});
