import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { toBase64Id } from '../src/kernel/ids.js';
import { playScenario } from '../src/telco/scenarios.js';
import { readInstruction } from '../src/telco/instructions.js';
import { postCallback } from './helpers/callbacks.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { closedPort, eventually, Receiver, type Received } from './helpers/receiver.js';

// Inbound routing decided by the company's endpoint (docs/adr/0068): over
// HTTP end to end. The provider's signed inbound callback is answered with
// the instruction the endpoint chose (or its fallback, within the deadline,
// when it is slow, fails, answers nonsense or is down); the call records who
// decided and call.started carries it; the circuit breaker opens and closes;
// a hedged second request is the same signed message; every request verifies
// with the standardwebhooks library.

// Long enough that the checks between the fifth failure and the next call (two reads, one of /metrics) fit on a loaded machine.
const BREAKER_OPEN_MS = 2000;
let app: TestApp;
let owner: string;
let account: { sid: string; authToken: string; companyId: number };
let number: { id: number; phone_no: string; chatbot_agent_id: number | null };
let agents: number[];
let endpoint: Receiver;
let webhooks: Receiver;
let endpointId: string;
let secret: string;

const callSid = () => `CA${randomBytes(16).toString('hex')}`;

/** The provider asks how to route a call to the company's number; the answer, its instruction and how long it took. */
async function inbound(sid = callSid(), from = '+14155550177') {
  const started = performance.now();
  const response = await postCallback(app.url, account.authToken, '/api/telco/voice/inbound', {
    AccountSid: account.sid,
    CallSid: sid,
    From: from,
    To: number.phone_no,
  });
  const text = await response.text();
  return {
    sid,
    status: response.status,
    text,
    ms: performance.now() - started,
    type: response.headers.get('content-type'),
    etag: response.headers.get('etag'),
    length: response.headers.get('content-length'),
  };
}

/** The call as recorded with its decision (recorded right after the provider is answered). */
const callOf = (sid: string) =>
  eventually(
    async () =>
      (
        await app.sql(
          `SELECT id, status, agent_id, decided_by, decision_action, decision_target, decision_reason,
             decision_fallback_reason, decision_latency_ms
           FROM calls WHERE provider_call_id = $1 AND decided_by IS NOT NULL`,
          [sid],
        )
      )[0],
    10_000,
    `the decision of ${sid} recorded`,
  );

const decisionRequests = () => endpoint.received.filter((r) => r.body.includes('"call.inbound"'));

async function setEndpoint(body: Record<string, unknown>) {
  const response = await app.request('PUT', `/api/decision-endpoints/${endpointId}`, { token: owner, body });
  assert.equal(response.status, 200, response.text);
  return response.body.data;
}

before(async () => {
  app = await startTestApp({ DECISION_BREAKER_OPEN: `${BREAKER_OPEN_MS}ms` });
  owner = await app.login('owner@acme.test');
  account = await app.providerAccount();
  agents = (await app.sql('SELECT id FROM agents WHERE company_id = $1 ORDER BY id', [account.companyId])).map(
    (a) => a.id,
  );
  [number] = await app.sql(
    'SELECT id, phone_no, chatbot_agent_id FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1',
    [account.companyId],
  );
  await app.sql('UPDATE phone_numbers SET chatbot_agent_id = $1 WHERE id = $2', [agents[0], number.id]);
  number.chatbot_agent_id = agents[0];
  endpoint = await new Receiver().start();
  webhooks = await new Receiver().start();
  const hook = await app.request('POST', '/api/webhooks', {
    token: owner,
    body: { title: 'calls', url: `${webhooks.url}/hooks`, events: ['call.started'] },
  });
  assert.equal(hook.status, 201, hook.text);
});
after(async () => {
  await endpoint?.close();
  await webhooks?.close();
  await app?.close();
});

describe('decision endpoints: configuration', () => {
  it('creates one, with its secret shown once, and finds it by every id form', async () => {
    const created = await app.request('POST', '/api/decision-endpoints', {
      token: owner,
      body: {
        url: `${endpoint.url}/decide`,
        deadline_ms: 1500,
        fallback_action: 'answer',
        fallback_agent_id: String(agents[1]),
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.message, 'Decision endpoint created successfully.');
    assert.match(created.body.data.secret, /^whsec_/);
    assert.equal(created.body.data.deadline_ms, 1500);
    assert.deepEqual(created.body.data.fallback, { action: 'answer', agent_id: String(agents[1]), forward_to: null });
    assert.equal(created.body.data.breaker.state, 'closed');
    endpointId = created.body.data.id;
    secret = created.body.data.secret;
    const id = Number(endpointId);
    for (const form of [String(id), toBase64Id(id), app.running.services.ids.encrypt('decision_endpoint', id)]) {
      const one = await app.request('GET', `/api/decision-endpoints/${encodeURIComponent(form)}`, { token: owner });
      assert.equal(one.status, 200, `${form}: ${one.text}`);
      assert.equal(one.body.data.url, `${endpoint.url}/decide`);
    }
    const shown = await app.request('GET', `/api/decision-endpoints/${endpointId}/secret`, { token: owner });
    assert.deepEqual(shown.body, { success: true, data: { secret } });
    const list = await app.request('GET', '/api/decision-endpoints', { token: owner });
    assert.deepEqual(
      list.body.data.map((e: { id: string }) => e.id),
      [endpointId],
    );
  });

  it("refuses another company's id, a malformed id, and a second endpoint for the company", async () => {
    const beta = await app.login('owner@beta.test');
    for (const [token, id] of [
      [beta, endpointId],
      [owner, 'not-an-id'],
      [owner, app.running.services.ids.encrypt('webhook', Number(endpointId))],
      [owner, '2147483648'],
    ]) {
      const response = await app.request('GET', `/api/decision-endpoints/${encodeURIComponent(id)}`, { token });
      assert.equal(response.status, 404, `${id}: ${response.text}`);
      assert.equal(response.body.message, 'Decision endpoint not found.');
    }
    const twice = await app.request('POST', '/api/decision-endpoints', {
      token: owner,
      body: { url: `${endpoint.url}/other`, fallback_action: 'reject' },
    });
    assert.equal(twice.status, 409, twice.text);
    assert.match(twice.body.message, /already has a decision endpoint/);
  });

  it('names the field, the bad value and what is accepted, and changes nothing', async () => {
    const before = await app.fingerprint();
    const [{ id: otherAgent }] = await app.sql('SELECT id FROM agents WHERE company_id <> $1 LIMIT 1', [
      account.companyId,
    ]);
    const [{ id: otherNumber }] = await app.sql('SELECT id FROM phone_numbers WHERE company_id <> $1 LIMIT 1', [
      account.companyId,
    ]);
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ url: 'ftp://example.com/x', fallback_action: 'answer' }, 'url', /http or https/],
      [{ url: 'http://user:pw@example.com/x', fallback_action: 'answer' }, 'url', /credentials/],
      [{ url: `${endpoint.url}/x`, fallback_action: 'answer', deadline_ms: 50 }, 'deadline_ms', /100 to 5000/],
      [{ url: `${endpoint.url}/x`, fallback_action: 'hangup' }, 'fallback_action', /hangup.*answer.*forward.*reject/],
      [{ url: `${endpoint.url}/x`, fallback_action: 'forward' }, 'fallback_forward_to', /E\.164/],
      [
        { url: `${endpoint.url}/x`, fallback_action: 'answer', fallback_agent_id: String(otherAgent) },
        'fallback_agent_id',
        /company's agents/,
      ],
      [
        { url: `${endpoint.url}/x`, fallback_action: 'answer', phone_number_id: String(otherNumber) },
        'phone_number_id',
        /company's phone numbers/,
      ],
    ];
    for (const [body, field, text] of cases) {
      const response = await app.request('POST', '/api/decision-endpoints', { token: owner, body });
      assert.equal(response.status, 422, `${JSON.stringify(body)}: ${response.text}`);
      const messages = JSON.stringify(response.body.errors);
      assert.ok(response.body.errors[field], `${field} named in ${messages}`);
      assert.match(messages, text, messages);
    }
    assert.equal(await app.fingerprint(), before);
  });

  it('needs view-call-routing to read and manage-call-routing to change', async () => {
    const viewer = await app.userWith(['view-call-routing']);
    assert.equal((await app.request('GET', '/api/decision-endpoints', { token: viewer })).status, 200);
    const refused = await app.request('PUT', `/api/decision-endpoints/${endpointId}`, {
      token: viewer,
      body: { hedge: true },
    });
    assert.equal(refused.status, 403);
    const nobody = await app.userWith([]);
    assert.equal((await app.request('GET', '/api/decision-endpoints', { token: nobody })).status, 403);
  });
});

describe('decision endpoints: the call path', () => {
  const answerWith = (decision: unknown, extra: Partial<{ status: number; delayMs: number; hang: boolean }> = {}) => {
    endpoint.answer = (r: Received) =>
      r.body.includes('"call.inbound"')
        ? { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(decision), ...extra }
        : { status: 204 };
  };

  it('answers with the agent and variables the endpoint chose; the request verifies; call.started carries the decision', async () => {
    answerWith({
      action: 'answer',
      agent_id: String(agents[2]),
      variables: { first_name: 'Ada', plan: 'gold & <vip>' },
    });
    const seen = decisionRequests().length;
    const call = await inbound();
    assert.equal(call.status, 200, call.text);
    assert.equal(call.type, 'text/xml; charset=utf-8');
    assert.equal(Number(call.length), Buffer.byteLength(call.text), 'the instruction is sent with its length');
    assert.equal(call.etag, null, 'an instruction answers a POST: no ETag is computed for it');
    assert.deepEqual(readInstruction(call.text), {
      action: 'answer',
      agentId: String(agents[2]),
      variables: { first_name: 'Ada', plan: 'gold & <vip>' },
    });
    const [request] = decisionRequests().slice(seen);
    const verified = new StandardWebhook(secret).verify(request.body, request.headers as Record<string, string>) as {
      type: string;
      data: Record<string, unknown>;
    };
    assert.equal(verified.type, 'call.inbound');
    assert.equal(verified.data.call_sid, call.sid);
    assert.equal(verified.data.called, number.phone_no);
    assert.equal(verified.data.agent_id, String(agents[0]));
    assert.equal(verified.data.deadline_ms, 1500);
    const row = await callOf(call.sid);
    assert.equal(row.status, 'initiated');
    assert.equal(row.decided_by, 'endpoint');
    assert.equal(row.agent_id, agents[2]);
    const started = await webhooks.waitFor(
      1,
      10_000,
      (r) => r.body.includes(call.sid) || r.body.includes(`"call_id":"${row.id}"`),
    );
    const event = JSON.parse(started[0].body);
    assert.equal(event.event, 'call.started');
    assert.equal(event.data.decision.decided_by, 'endpoint');
    assert.equal(event.data.decision.action, 'answer');
    assert.equal(event.data.decision.agent_id, String(agents[2]));
    assert.equal(typeof event.data.decision.latency_ms, 'number');
    assert.equal(event.data.decision.fallback_reason, null);
    // Asked again about the same call, the provider gets the same bytes (the variables come from the call's copy).
    const again = await inbound(call.sid);
    assert.equal(again.text, call.text);
    // The call's record carries the decision too.
    const details = await app.request('GET', `/api/ai/dashboard/calls/${row.id}`, { token: owner });
    assert.deepEqual(
      [details.body.data.decision.decided_by, details.body.data.decision.agent_id],
      ['endpoint', String(agents[2])],
    );
  });

  it('writes the decision onto a call a status callback started first, and records call.started once', async () => {
    answerWith({ action: 'answer', agent_id: String(agents[1]) });
    const sid = callSid();
    const base = { AccountSid: account.sid, CallSid: sid, From: '+14155550178', To: number.phone_no };
    const status = await postCallback(app.url, account.authToken, '/api/telco/voice/status', {
      ...base,
      CallStatus: 'initiated',
    });
    assert.equal(status.status, 204);
    const call = await inbound(sid, '+14155550178');
    assert.equal(readInstruction(call.text).agentId, String(agents[1]));
    const row = await callOf(sid);
    assert.deepEqual([row.status, row.decided_by, row.agent_id], ['initiated', 'endpoint', agents[1]]);
    const [{ n }] = await eventually(async () => {
      const rows = await app.sql(
        "SELECT count(*)::int AS n FROM events WHERE type = 'call.started' AND data->>'call_id' = $1",
        [String(row.id)],
      );
      return rows[0].n > 0 ? rows : undefined;
    });
    assert.equal(n, 1);
  });

  it('ten calls at once from a number new to the company make one contact, which each call and call.started name', async () => {
    answerWith({ action: 'answer' });
    const from = `+1415555${String(Date.now() % 10_000).padStart(4, '0')}`;
    const calls = await Promise.all(Array.from({ length: 10 }, () => inbound(callSid(), from)));
    for (const call of calls) assert.equal(call.status, 200, call.text);
    const recorded = await Promise.all(calls.map((call) => callOf(call.sid)));
    const contacts = await app.sql<{ id: number }>(
      'SELECT t.id FROM contacts t JOIN phone_numbers n ON n.company_id = t.company_id WHERE n.phone_no = $1 AND t.phone_number = $2',
      [number.phone_no, from],
    );
    assert.equal(contacts.length, 1);
    const named = await app.sql<{ contact_id: number }>('SELECT contact_id FROM calls WHERE id = ANY($1)', [
      recorded.map((row) => row.id),
    ]);
    assert.deepEqual([...new Set(named.map((row) => row.contact_id))], [contacts[0].id]);
    const started = await app.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM events WHERE type = 'call.started' AND contact->>'contact_id' = $1",
      [String(contacts[0].id)],
    );
    assert.equal(started[0].n, 10);
  });

  it('forwards and rejects as the endpoint says, and asks once for a repeated callback', async () => {
    answerWith({ action: 'forward', to: '+12125550142' });
    const forwarded = await inbound();
    assert.equal(readInstruction(forwarded.text).forwardTo, '+12125550142');
    assert.equal((await callOf(forwarded.sid)).decision_target, '+12125550142');
    answerWith({ action: 'reject', reason: 'blocked caller' });
    const seen = decisionRequests().length;
    const rejected = await inbound();
    assert.equal(readInstruction(rejected.text).action, 'reject');
    // The provider asks again once the call is recorded (a repeat before that may ask the endpoint again).
    await callOf(rejected.sid);
    const again = await inbound(rejected.sid);
    assert.equal(again.status, 200);
    assert.equal(again.text, rejected.text);
    assert.equal(decisionRequests().length - seen, 1, 'the repeat is answered from the call, not asked again');
    const row = await callOf(rejected.sid);
    assert.deepEqual(
      [row.decided_by, row.decision_action, row.decision_reason],
      ['endpoint', 'reject', 'blocked caller'],
    );
  });

  it('gives the fallback within the deadline when the endpoint hangs, errs, answers nonsense or is down', async () => {
    await setEndpoint({ deadline_ms: 300, fallback_action: 'forward', fallback_forward_to: '+12125550199' });
    const port = await closedPort();
    // The code a client switches on, and the words that say why.
    const cases: Array<[string, () => void, string, RegExp, string?]> = [
      ['hangs', () => answerWith({}, { hang: true }), 'timeout', /^no answer within \d+ ms$/],
      ['errs', () => answerWith({ action: 'answer' }, { status: 500 }), 'error', /^the endpoint answered HTTP 500/],
      ['nonsense', () => answerWith({ action: 'dance' }), 'invalid', /^the answer does not validate/],
      [
        'not JSON',
        () => (endpoint.answer = () => ({ status: 200, body: '<ok/>' })),
        'invalid',
        /^the answer is not JSON/,
      ],
      [
        'a stranger agent',
        () => answerWith({ action: 'answer', agent_id: '999999' }),
        'invalid',
        /not one of the company's agents/,
      ],
      ['down', () => undefined, 'unreachable', /./, `http://127.0.0.1:${port}/decide`],
    ];
    for (const [what, arrange, code, reason, url] of cases) {
      arrange();
      if (url) await setEndpoint({ url });
      const call = await inbound();
      assert.equal(call.status, 200, `${what}: ${call.text}`);
      assert.deepEqual(
        readInstruction(call.text),
        { action: 'forward', forwardTo: '+12125550199', variables: {} },
        what,
      );
      const row = await callOf(call.sid);
      assert.equal(row.decided_by, 'fallback', what);
      assert.equal(row.decision_fallback_reason, code, what);
      assert.match(row.decision_reason, reason, what);
      if (what === 'hangs') {
        // The call's record shows its decision, in both APIs, with the code as an enum value.
        const details = await app.request('GET', `/api/ai/dashboard/calls/${row.id}`, { token: owner });
        assert.equal(details.status, 200, details.text);
        assert.deepEqual(
          { ...details.body.data.decision, latency_ms: 0 },
          {
            decided_by: 'fallback',
            action: 'forward',
            agent_id: null,
            forward_to: '+12125550199',
            fallback_reason: 'timeout',
            reason: row.decision_reason,
            latency_ms: 0,
          },
        );
        const shown = await app.graphql(
          'query($id: ID!) { callDetails(id: $id) { decision { decidedBy fallbackReason reason } } }',
          { id: String(row.id) },
          owner,
        );
        assert.deepEqual(shown.body.data.callDetails.decision, {
          decidedBy: 'fallback',
          fallbackReason: 'timeout',
          reason: row.decision_reason,
        });
      }
      assert.ok(row.decision_latency_ms <= 300 + 25, `${what}: decided in ${row.decision_latency_ms} ms`);
      // Not a timing claim: a fallback that waited for a hanging endpoint would take its 10 s timeout.
      assert.ok(call.ms < 3000, `${what}: answered in ${call.ms} ms`);
      // One success between cases, so that the breaker (five failures in a row) stays closed.
      answerWith({ action: 'answer' });
      assert.equal((await callOf((await inbound()).sid)).decided_by, url ? 'fallback' : 'endpoint');
    }
    await setEndpoint({ url: `${endpoint.url}/decide`, deadline_ms: 1500 });
  });

  it('opens the breaker after five failures in a row, answers with the fallback without asking, and closes after a probe', async () => {
    await setEndpoint({ fallback_action: 'reject' });
    answerWith({}, { status: 503 });
    for (let i = 0; i < 5; i++) await inbound();
    const open = await app.request('GET', `/api/decision-endpoints/${endpointId}`, { token: owner });
    assert.equal(open.body.data.breaker.state, 'open');
    assert.equal(open.body.data.breaker.consecutive_failures, 5);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    assert.match(metrics, new RegExp(`call_decision_breaker_open\\{endpoint="decision:${endpointId}"\\} 1`));
    assert.match(metrics, /call_decision_fallbacks_total\{reason="error"\} \d+/);
    const seen = decisionRequests().length;
    const fast = await inbound();
    assert.equal(readInstruction(fast.text).action, 'reject');
    const broken = await callOf(fast.sid);
    assert.equal(broken.decision_fallback_reason, 'breaker_open');
    assert.equal(broken.decision_reason, "the endpoint's circuit breaker is open");
    assert.equal(decisionRequests().length, seen, 'an open breaker does not ask');
    // After the open period one call probes; the endpoint has recovered, so the breaker closes.
    answerWith({ action: 'answer' });
    await new Promise((resolve) => setTimeout(resolve, BREAKER_OPEN_MS + 50));
    const probe = await inbound();
    assert.equal((await callOf(probe.sid)).decided_by, 'endpoint');
    const closed = await app.request('GET', `/api/decision-endpoints/${endpointId}`, { token: owner });
    assert.equal(closed.body.data.breaker.state, 'closed');
    assert.match(
      await (await fetch(`${app.url}/metrics`)).text(),
      new RegExp(`call_decision_breaker_open\\{endpoint="decision:${endpointId}"\\} 0`),
    );
  });

  it('hedges: when the first request is slower than the recent p95, a second one (the same signed message) decides', async () => {
    await setEndpoint({ hedge: true, deadline_ms: 2000 });
    answerWith({ action: 'answer' });
    for (let i = 0; i < 25; i++) await inbound();
    // This call's first request hangs; its second answers. Known by its sid: a request the warm-up calls hedged may
    // still arrive after their answers (under load a first request is slower than the recent p95 too).
    const sid = callSid();
    const mine = () => decisionRequests().filter((r) => r.body.includes(`"${sid}"`));
    endpoint.answer = (r: Received) =>
      !r.body.includes(`"${sid}"`)
        ? { status: 204 }
        : mine()[0] === r
          ? { hang: true }
          : { status: 200, body: JSON.stringify({ action: 'answer', variables: { hedged: 'yes' } }) };
    const call = await inbound(sid);
    assert.deepEqual(readInstruction(call.text).variables, { hedged: 'yes' });
    const [first, second] = mine();
    assert.ok(second, 'a second request was sent');
    assert.equal(first.headers['webhook-id'], second.headers['webhook-id']);
    assert.equal(first.body, second.body);
    new StandardWebhook(secret).verify(second.body, second.headers as Record<string, string>);
    assert.equal((await callOf(call.sid)).decided_by, 'endpoint');
    await setEndpoint({ hedge: false });
  });

  it("the number's own endpoint decides before the company's; without any, the number's agent answers", async () => {
    const own = await new Receiver().start();
    try {
      own.answer = () => ({ status: 200, body: JSON.stringify({ action: 'forward', to: '+12125550111' }) });
      const created = await app.request('POST', '/api/decision-endpoints', {
        token: owner,
        body: { url: `${own.url}/decide`, phone_number_id: toBase64Id(number.id), fallback_action: 'reject' },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(readInstruction((await inbound()).text).forwardTo, '+12125550111');
      for (const id of [created.body.data.id, endpointId]) {
        const gone = await app.request('DELETE', `/api/decision-endpoints/${id}`, { token: owner });
        assert.equal(gone.status, 200, gone.text);
      }
      const plain = await inbound();
      assert.deepEqual(readInstruction(plain.text), { action: 'answer', agentId: String(agents[0]), variables: {} });
      assert.equal((await callOf(plain.sid)).decided_by, 'number');
    } finally {
      await own.close();
    }
  });

  it('the simulator asks how to route its inbound call and plays what the decision says', async () => {
    const created = await app.request('POST', '/api/decision-endpoints', {
      token: owner,
      body: { url: `${endpoint.url}/decide`, fallback_action: 'answer' },
    });
    assert.equal(created.status, 201, created.text);
    answerWith({ action: 'forward', to: '+12125550142' });
    const instructions: unknown[] = [];
    const sid = await playScenario('inbound-call', {
      url: app.url,
      accountSid: account.sid,
      authToken: account.authToken,
      number: number.phone_no,
      onInstruction: (i) => instructions.push(i),
    });
    assert.deepEqual(instructions, [{ action: 'forward', forwardTo: '+12125550142', variables: {} }]);
    const row = await eventually(async () => {
      const [call] = await app.sql('SELECT status, transferred_to FROM calls WHERE provider_call_id = $1', [sid]);
      return call?.status === 'completed' ? call : undefined;
    });
    assert.equal(row.transferred_to, '+12125550142');
  });

  it('npm run simulate -- inbound-call --decision-url makes the example receiver the endpoint, and plays what it decides', async () => {
    const { spawn } = await import('node:child_process');
    // The example receiver as a user runs it, blocking the simulated caller.
    const port = await closedPort();
    const run = (file: string, args: string[], env: Record<string, string>, until?: RegExp) =>
      new Promise<{ status: number | null; out: string; stop: () => void }>((resolve) => {
        const child = spawn(process.execPath, [file, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
        let out = '';
        const seen = (chunk: Buffer) => {
          out += chunk.toString();
          if (until?.test(out)) resolve({ status: null, out, stop: () => child.kill() });
        };
        child.stdout.on('data', seen);
        child.stderr.on('data', seen);
        child.on('exit', (status) => resolve({ status, out, stop: () => undefined }));
      });
    const simulate = (extra: string[]) =>
      run(
        'dist/src/telco/simulate.js',
        [
          'inbound-call',
          '--delay',
          '0',
          '--contact',
          '+14155550199',
          '--decision-url',
          `http://127.0.0.1:${port}/route`,
          ...extra,
        ],
        { PORT: new URL(app.url).port },
      );
    // First run: no receiver yet, so the new endpoint is unreachable and its fallback (the number's agent) answers.
    await app.sql('DELETE FROM decision_endpoints WHERE company_id = $1 AND phone_number_id IS NULL', [
      account.companyId,
    ]);
    const first = await simulate([]);
    assert.equal(first.status, 0, first.out);
    const secret = /secret (whsec_\S+)\)/.exec(first.out)?.[1];
    assert.ok(secret, first.out);
    const receiver = await run(
      'examples/receiver.mjs',
      [],
      { WEBHOOK_SECRETS: secret, RECEIVER_PORT: String(port), DECISION_BLOCKED: '+14155550199' },
      /listening/,
    );
    try {
      const second = await simulate([]);
      assert.equal(second.status, 0, second.out);
      const sid = /call (\S+) on/.exec(second.out)![1];
      const row = await callOf(sid);
      // The call's record says why, when the fallback answered.
      assert.match(second.out, /inbound: 200, reject/, JSON.stringify(row));
      assert.deepEqual(
        [row.decided_by, row.decision_action, row.decision_reason],
        ['endpoint', 'reject', 'blocked caller'],
      );
    } finally {
      receiver.stop();
    }
  });
});
