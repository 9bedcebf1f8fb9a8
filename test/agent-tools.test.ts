import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { toBase64Id } from '../src/kernel/ids.js';
import { playScenario } from '../src/telco/scenarios.js';
import { postCallback } from './helpers/callbacks.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually, Receiver } from './helpers/receiver.js';

// Tools for AI agents (docs/adr/0069), over HTTP end to end: an agent's tool
// configured through REST, called by the simulated provider in the middle of
// a call; its arguments checked against the tool's schema before anything is
// sent; the tool's endpoint asked with a signed request (verified with the
// standardwebhooks library); its result, or the fallback message within the
// deadline, answered to the provider and kept as the transcript's tool turn.

let app: TestApp;
let owner: string;
let account: { sid: string; authToken: string; companyId: number };
let number: string;
let agentId: number;
let endpoint: Receiver;
let toolId: string;
let secret: string;

const PARAMETERS = {
  type: 'object',
  properties: { day: { type: 'string', enum: ['Monday', 'Tuesday'] } },
  required: ['day'],
  additionalProperties: false,
};

/** A call answered by the number's agent (the provider asked, no decision endpoint), in progress. */
async function callInProgress(): Promise<string> {
  const sid = `CA${randomBytes(16).toString('hex')}`;
  const base = { AccountSid: account.sid, CallSid: sid, From: '+14155550166', To: number };
  assert.equal((await postCallback(app.url, account.authToken, '/api/telco/voice/inbound', base)).status, 200);
  const progress = await postCallback(app.url, account.authToken, '/api/telco/voice/status', {
    ...base,
    CallStatus: 'in-progress',
  });
  assert.equal(progress.status, 204);
  return sid;
}

async function callTool(sid: string, sequence: number, tool: string, args: string) {
  const response = await postCallback(app.url, account.authToken, '/api/telco/voice/tool', {
    AccountSid: account.sid,
    CallSid: sid,
    From: '+14155550166',
    To: number,
    Sequence: String(sequence),
    Tool: tool,
    Arguments: args,
  });
  assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(response.headers.get('etag'), null, 'a tool call is answered without an ETag');
  return { status: response.status, body: await response.json() };
}

const turnsOf = async (sid: string) =>
  app.sql(
    'SELECT t.sequence, t.speaker, t.text FROM call_turns t JOIN calls c ON c.id = t.call_id WHERE c.provider_call_id = $1 ORDER BY t.sequence',
    [sid],
  );
const toolRequests = () => endpoint.received.filter((r) => r.body.includes('"tool.call"'));

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  account = await app.providerAccount();
  const [row] = await app.sql('SELECT id, phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1', [
    account.companyId,
  ]);
  number = row.phone_no;
  [{ id: agentId }] = await app.sql('SELECT id FROM agents WHERE company_id = $1 ORDER BY id LIMIT 1', [
    account.companyId,
  ]);
  await app.sql('UPDATE phone_numbers SET chatbot_agent_id = $1 WHERE id = $2', [agentId, row.id]);
  endpoint = await new Receiver().start();
});
after(async () => {
  await endpoint?.close();
  await app?.close();
});

describe('agent tools: configuration', () => {
  it('gives an agent a tool, with its secret shown once, found by every id form', async () => {
    const created = await app.request('POST', `/api/agents/${toBase64Id(agentId)}/tools`, {
      token: owner,
      body: {
        name: 'check_availability',
        description: 'Free appointment slots on a day',
        parameters: PARAMETERS,
        url: `${endpoint.url}/tools/availability`,
        deadline_ms: 400,
        fallback_message: 'I cannot check the calendar right now.',
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.message, 'Tool created successfully.');
    assert.match(created.body.data.secret, /^whsec_/);
    assert.deepEqual(created.body.data.parameters, PARAMETERS);
    assert.equal(created.body.data.agent_id, String(agentId));
    toolId = created.body.data.id;
    secret = created.body.data.secret;
    const id = Number(toolId);
    for (const form of [String(id), toBase64Id(id), app.running.services.ids.encrypt('agent_tool', id)]) {
      const one = await app.request('GET', `/api/agent-tools/${encodeURIComponent(form)}`, { token: owner });
      assert.equal(one.status, 200, `${form}: ${one.text}`);
      assert.equal(one.body.data.name, 'check_availability');
    }
    const list = await app.request('GET', `/api/agents/${agentId}/tools`, { token: owner });
    assert.deepEqual(
      list.body.data.map((t: { name: string }) => t.name),
      ['check_availability'],
    );
    // The shape of every secret route's answer (a webhook's too): { data: { secret } }.
    assert.deepEqual((await app.request('GET', `/api/agent-tools/${toolId}/secret`, { token: owner })).body, {
      success: true,
      data: { secret },
    });
  });

  it("refuses another company's ids, malformed ids, a second tool of the same name, and bad fields by name", async () => {
    const beta = await app.login('owner@beta.test');
    for (const [token, path] of [
      [beta, `/api/agent-tools/${toolId}`],
      [owner, '/api/agent-tools/zz-not-an-id'],
      [owner, `/api/agent-tools/${app.running.services.ids.encrypt('agent', Number(toolId))}`],
      [beta, `/api/agents/${agentId}/tools`],
    ]) {
      const response = await app.request('GET', path, { token });
      assert.equal(response.status, 404, `${path}: ${response.text}`);
    }
    const base = { name: 'lookup', description: 'd', parameters: PARAMETERS, url: `${endpoint.url}/t` };
    const twice = await app.request('POST', `/api/agents/${agentId}/tools`, {
      token: owner,
      body: { ...base, name: 'check_availability' },
    });
    assert.equal(twice.status, 409, twice.text);
    const before = await app.fingerprint();
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ ...base, name: 'has space' }, 'name', /letters, digits.*"has space"/],
      [{ ...base, parameters: { type: 'string' } }, 'parameters', /type is "object" \(got "string"\)/],
      [
        { ...base, parameters: { type: 'object', properties: { a: { type: 'nope' } } } },
        'parameters',
        /valid JSON Schema/,
      ],
      [{ ...base, url: 'ftp://example.com/t' }, 'url', /http or https/],
      [{ ...base, deadline_ms: 20_000 }, 'deadline_ms', /100 to 10000 \(got 20000\)/],
      [{ ...base, description: 'x'.repeat(1001) }, 'description', /1000/],
    ];
    for (const [body, field, text] of cases) {
      const response = await app.request('POST', `/api/agents/${agentId}/tools`, { token: owner, body });
      assert.equal(response.status, 422, `${field}: ${response.text}`);
      assert.ok(response.body.errors[field], `${field} named: ${response.text}`);
      assert.match((Object.values(response.body.errors) as string[][]).flat().join(' '), text);
    }
    assert.equal(await app.fingerprint(), before);
  });

  it('needs view-agents to read and manage-agents to change', async () => {
    const viewer = await app.userWith(['view-agents']);
    assert.equal((await app.request('GET', `/api/agents/${agentId}/tools`, { token: viewer })).status, 200);
    const refused = await app.request('PUT', `/api/agent-tools/${toolId}`, {
      token: viewer,
      body: { deadline_ms: 500 },
    });
    assert.equal(refused.status, 403);
  });
});

describe('agent tools: a tool called during a call', () => {
  it('plays a call whose agent calls the tool: the request verifies, the result goes back and into the transcript', async () => {
    endpoint.answer = () => ({ status: 200, body: JSON.stringify({ result: { slots: ['15:00', '16:30'] } }) });
    const results: unknown[] = [];
    const sid = await playScenario('tool-call', {
      url: app.url,
      accountSid: account.sid,
      authToken: account.authToken,
      number,
      toolArguments: '{"day":"Tuesday"}',
      onToolResult: (answer) => results.push(answer),
    });
    assert.deepEqual(results, [
      { result: { slots: ['15:00', '16:30'] }, source: 'endpoint', fallback_reason: null, reason: null },
    ]);
    const [request] = toolRequests();
    const verified = new StandardWebhook(secret).verify(request.body, request.headers as Record<string, string>) as {
      data: Record<string, unknown>;
    };
    assert.equal(verified.data.call_sid, sid);
    assert.equal(verified.data.tool, 'check_availability');
    assert.deepEqual(verified.data.arguments, { day: 'Tuesday' });
    assert.equal(verified.data.agent_id, String(agentId));
    const turns = await eventually(async () => {
      const written = await turnsOf(sid);
      return written.length === 3 ? written : undefined;
    }, 5000);
    assert.deepEqual(
      turns.map((t) => t.speaker),
      ['caller', 'tool', 'agent'],
    );
    assert.equal(turns[1].text, 'check_availability({"day":"Tuesday"}) → {"slots":["15:00","16:30"]}');
    const [{ id: callId }] = await app.sql('SELECT id FROM calls WHERE provider_call_id = $1', [sid]);
    const shown = await app.graphql(
      'query($id: ID!) { callTranscriptTurns(callId: $id) { sequence speaker text } }',
      { id: String(callId) },
      owner,
    );
    assert.equal(shown.body.data.callTranscriptTurns[1].speaker, 'tool');
  });

  it('answers arguments that do not match, and a tool the agent lacks, at once without asking', async () => {
    const sid = await callInProgress();
    const asked = toolRequests().length;
    const wrong = await callTool(sid, 0, 'check_availability', '{"day":"Sunday"}');
    assert.equal(wrong.status, 200);
    assert.equal(wrong.body.source, 'invalid_arguments');
    assert.equal(wrong.body.fallback_reason, null);
    assert.match(
      wrong.body.reason,
      /^the arguments do not match the tool's parameters: \/day must be equal to one of the allowed values/,
    );
    const unknown = await callTool(sid, 1, 'book_flight', '{}');
    assert.equal(unknown.body.source, 'unknown_tool');
    const notJson = await callTool(sid, 2, 'check_availability', '{day:');
    assert.equal(notJson.body.reason, 'the arguments are not JSON');
    assert.equal(toolRequests().length, asked, 'the endpoint was not asked');
    // Each turn is written right after its answer (docs/adr/0097).
    const turns = await eventually(async () => {
      const written = await turnsOf(sid);
      return written.length === 3 ? written : undefined;
    }, 5000);
    assert.deepEqual(
      turns.map((t) => t.speaker),
      ['tool', 'tool', 'tool'],
    );
  });

  it('writes the turns of tool calls answered together once each, a sequence asked twice once', async () => {
    const [a, b] = [await callInProgress(), await callInProgress()];
    // Thirty tool calls of two calls at once (answered without asking: the agent lacks the tool), and one sequence of
    // the first call asked twice: written together at the call path's next quiet moment (docs/adr/0099).
    const asked = [
      ...Array.from({ length: 15 }, (_, i) => callTool(a, i, 'book_flight', `{"n":${i}}`)),
      ...Array.from({ length: 15 }, (_, i) => callTool(b, i, 'book_flight', `{"n":${i}}`)),
      callTool(a, 3, 'book_flight', '{"n":"again"}'),
    ];
    for (const answer of await Promise.all(asked)) assert.equal(answer.body.source, 'unknown_tool');
    for (const sid of [a, b]) {
      const turns = await eventually(async () => {
        const written = await turnsOf(sid);
        return written.length >= 15 ? written : undefined;
      }, 5000);
      assert.deepEqual(
        turns.map((t) => t.sequence),
        Array.from({ length: 15 }, (_, i) => i),
      );
      assert.ok(turns.every((t) => t.speaker === 'tool'));
    }
    const [third] = (await turnsOf(a)).filter((t) => t.sequence === 3);
    assert.match(third.text, /^book_flight\(\{"n":(3|"again")\}\) → /, 'one of the two, once');
  });

  it("gives the tool's fallback message within the deadline when the endpoint hangs or fails", async () => {
    const sid = await callInProgress();
    endpoint.answer = () => ({ hang: true });
    const started = performance.now();
    const hung = await callTool(sid, 0, 'check_availability', '{"day":"Monday"}');
    assert.deepEqual([hung.body.source, hung.body.result], ['fallback', 'I cannot check the calendar right now.']);
    assert.equal(hung.body.fallback_reason, 'timeout');
    assert.match(hung.body.reason, /^no answer within \d+ ms$/);
    // Not a timing claim: without the deadline the request would wait for its 10 s timeout.
    assert.ok(performance.now() - started < 3000);
    endpoint.answer = () => ({ status: 200, body: '{"nope":1}' });
    const nonsense = await callTool(sid, 1, 'check_availability', '{"day":"Monday"}');
    assert.equal(nonsense.body.fallback_reason, 'invalid');
    assert.match(nonsense.body.reason, /^the answer must be a JSON object with a result/);
    const unknownCall = await callTool(
      `CA${randomBytes(16).toString('hex')}`,
      0,
      'check_availability',
      '{"day":"Monday"}',
    );
    assert.equal(unknownCall.status, 404);
    assert.equal(unknownCall.body.message, 'Call not found.');
  });

  it('the example receiver answers a tool call as a tool endpoint', async () => {
    const { spawn } = await import('node:child_process');
    const created = await app.request('POST', `/api/agents/${agentId}/tools`, {
      token: owner,
      body: { name: 'example_tool', description: 'Anything', parameters: { type: 'object' }, url: `${endpoint.url}/x` },
    });
    assert.equal(created.status, 201, created.text);
    // RECEIVER_PORT 0: the receiver takes a free port and prints it (a random one can be taken by an outgoing connection).
    const child = spawn(process.execPath, ['examples/receiver.mjs'], {
      env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRETS: created.body.data.secret, RECEIVER_PORT: '0' },
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const listening = /"listening":(\d+)/.exec(output);
          if (listening) resolve(Number(listening[1]));
        });
        child.on('exit', (code) => reject(new Error(`the receiver exited: ${code}`)));
      });
      const moved = await app.request('PUT', `/api/agent-tools/${created.body.data.id}`, {
        token: owner,
        body: { url: `http://127.0.0.1:${port}/tools` },
      });
      assert.equal(moved.status, 200, moved.text);
      const sid = await callInProgress();
      const answer = await callTool(sid, 0, 'example_tool', '{"day":"Friday"}');
      assert.deepEqual(answer.body, { result: { ok: true }, source: 'endpoint', fallback_reason: null, reason: null });
    } finally {
      child.kill();
    }
  });
});
