import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { toBase64Id } from '../src/kernel/ids.js';
import { postCallback } from './helpers/callbacks.js';
import { adminQuery, databaseUrl, startTestApp, type TestApp } from './helpers/app.js';
import { closedPort, eventually, Receiver, type Received } from './helpers/receiver.js';

// Endpoint health for the call path (docs/call-routing.md): the record over time of a decision endpoint and of an
// agent tool, over HTTP end to end. Inbound calls and tool calls played through the provider's signed callbacks
// meet every outcome (answered, an error status, an answer that cannot be taken, a timeout, a refused connection, an
// open breaker); the record, read back through REST and GraphQL, equals a count of what the calls recorded and what
// the provider was answered. Another company's and malformed ids are 404; a bad window names its field; an empty
// window lists its empty buckets; a process stopping writes what it counted.

// Long enough that a loaded machine still answers in time; the one hang of each test waits it out.
const DEADLINE_MS = 1500;
let app: TestApp;
let owner: string;
let account: { sid: string; authToken: string; companyId: number };
let number: string;
let agentId: number;
let endpoint: Receiver;
let endpointId: string;
let toolId: string;

const callSid = () => `CA${randomBytes(16).toString('hex')}`;

async function inbound(sid = callSid()): Promise<string> {
  const response = await postCallback(app.url, account.authToken, '/api/telco/voice/inbound', {
    AccountSid: account.sid,
    CallSid: sid,
    From: '+14155550177',
    To: number,
  });
  assert.equal(response.status, 200, await response.text());
  return sid;
}

async function callTool(sid: string, sequence: number) {
  const response = await postCallback(app.url, account.authToken, '/api/telco/voice/tool', {
    AccountSid: account.sid,
    CallSid: sid,
    From: '+14155550177',
    To: number,
    Sequence: String(sequence),
    Tool: 'check_availability',
    Arguments: '{"day":"Monday"}',
  });
  assert.equal(response.status, 200);
  return (await response.json()) as { source: string; fallback_reason: string | null };
}

const decisionAnswer = (extra: { status?: number; hang?: boolean; body?: string } = {}) => {
  endpoint.answer = (r: Received) =>
    r.body.includes('"call.inbound"')
      ? { status: 200, headers: { 'content-type': 'application/json' }, body: '{"action":"answer"}', ...extra }
      : r.body.includes('"tool.call"')
        ? { status: 200, headers: { 'content-type': 'application/json' }, body: '{"result":{"free":true}}', ...extra }
        : { status: 204 };
};

const stats = (path: string, query = 'bucket=minute') => app.request('GET', `${path}/stats?${query}`, { token: owner });

/** The record once it holds `questions` (it is written every 100 ms here). */
const recordOf = (path: string, questions: number) =>
  eventually(
    async () => {
      const response = await stats(path);
      assert.equal(response.status, 200, response.text);
      return response.body.data.totals.questions === questions ? response.body.data : undefined;
    },
    10_000,
    `${path}'s record of ${questions} questions`,
  );

before(async () => {
  app = await startTestApp({ CALL_PATH_STATS_EVERY: '100ms', DECISION_BREAKER_OPEN: '60s' });
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
  decisionAnswer();
  const created = await app.request('POST', '/api/decision-endpoints', {
    token: owner,
    body: { url: `${endpoint.url}/decide`, deadline_ms: DEADLINE_MS, fallback_action: 'answer' },
  });
  assert.equal(created.status, 201, created.text);
  endpointId = created.body.data.id;
  const tool = await app.request('POST', `/api/agents/${agentId}/tools`, {
    token: owner,
    body: {
      name: 'check_availability',
      description: 'Free slots on a day',
      parameters: { type: 'object', properties: { day: { type: 'string' } } },
      url: `${endpoint.url}/tool`,
      deadline_ms: DEADLINE_MS,
      fallback_message: 'I cannot check the calendar right now.',
    },
  });
  assert.equal(tool.status, 201, tool.text);
  toolId = tool.body.data.id;
});
after(async () => {
  await endpoint?.close();
  await app?.close();
});

describe('call path health: the record equals what was answered', () => {
  it("counts a decision endpoint's answers and fallbacks by reason, as the calls recorded them", async () => {
    const path = `/api/decision-endpoints/${endpointId}`;
    const put = async (url: string) =>
      assert.equal((await app.request('PUT', path, { token: owner, body: { url } })).status, 200);
    for (let i = 0; i < 3; i++) await inbound();
    await put(`http://127.0.0.1:${await closedPort()}/decide`);
    await inbound();
    await put(`${endpoint.url}/decide`);
    // Five failures in a row open the breaker: two 500s, an answer that cannot be taken, a hang, a 500.
    for (const answer of [
      { status: 500 },
      { status: 500 },
      { body: '{"action":"dance"}' },
      { hang: true },
      { status: 500 },
    ]) {
      decisionAnswer(answer);
      await inbound();
    }
    // Open: the fallback answers at once, nothing is sent.
    const sent = endpoint.received.length;
    await inbound();
    await inbound();
    assert.equal(endpoint.received.length, sent);
    decisionAnswer();

    const record = await recordOf(path, 11);
    const calls = await eventually(async () => {
      const rows = await app.sql(
        `SELECT coalesce(decision_fallback_reason, 'answered') AS outcome, count(*)::int AS n FROM calls
         WHERE company_id = $1 AND decided_by IN ('endpoint', 'fallback') GROUP BY 1`,
        [account.companyId],
      );
      return rows.reduce((n, r) => n + r.n, 0) === 11 ? rows : undefined;
    });
    const counted = Object.fromEntries(calls.map((r) => [r.outcome, r.n]));
    const { totals } = record;
    assert.deepEqual(
      {
        answered: totals.answered,
        error: totals.error,
        invalid: totals.invalid,
        timeout: totals.timeout,
        unreachable: totals.unreachable,
        breaker_open: totals.breaker_open,
      },
      { answered: 3, error: 3, invalid: 1, timeout: 1, unreachable: 1, breaker_open: 2 },
    );
    assert.deepEqual(counted, { answered: 3, error: 3, invalid: 1, timeout: 1, unreachable: 1, breaker_open: 2 });
    assert.equal(totals.breaker_openings, 1);
    assert.equal(totals.answer_rate, Math.round((3 / 11) * 10_000) / 10_000);
    // The hang took the whole deadline: the endpoint's p99 is in the slot holding 1.5 s; Switchboard's own time
    // stays far below the endpoint's.
    assert.equal(totals.endpoint_p99_ms, 2500);
    assert.ok(totals.added_p50_ms < totals.endpoint_p99_ms, JSON.stringify(totals));
    assert.equal(record.breaker.state, 'open');
    assert.deepEqual(record.company_totals, totals);
    // The points add up to the totals, minute by minute.
    const sum = (key: string) => record.points.reduce((n: number, p: Record<string, number>) => n + p[key], 0);
    for (const key of ['questions', 'answered', 'error', 'invalid', 'timeout', 'unreachable', 'breaker_open'])
      assert.equal(sum(key), totals[key], key);
    // GraphQL gives the same record.
    const graphql = await app.graphql(
      `query { decisionEndpointStats(id: "${endpointId}", bucket: minute) { totals { questions breakerOpen addedP99Ms } } }`,
      {},
      owner,
    );
    assert.deepEqual(graphql.body.data.decisionEndpointStats.totals, {
      questions: 11,
      breakerOpen: 2,
      addedP99Ms: totals.added_p99_ms,
    });
  });

  it("counts an agent tool's answers and fallbacks, as the provider was answered", async () => {
    const sid = await inbound();
    await postCallback(app.url, account.authToken, '/api/telco/voice/status', {
      AccountSid: account.sid,
      CallSid: sid,
      From: '+14155550177',
      To: number,
      CallStatus: 'in-progress',
    });
    const answers = [];
    decisionAnswer();
    answers.push(await callTool(sid, 0), await callTool(sid, 1));
    decisionAnswer({ hang: true });
    answers.push(await callTool(sid, 2));
    decisionAnswer({ status: 503 });
    answers.push(await callTool(sid, 3));
    decisionAnswer({ body: '{"nope":1}' });
    answers.push(await callTool(sid, 4));
    decisionAnswer();
    const told = answers.map((a) => a.fallback_reason ?? a.source);
    assert.deepEqual(told, ['endpoint', 'endpoint', 'timeout', 'error', 'invalid']);
    const record = await recordOf(`/api/agent-tools/${toolId}`, 5);
    assert.deepEqual(
      [record.totals.answered, record.totals.timeout, record.totals.error, record.totals.invalid],
      [2, 1, 1, 1],
    );
    assert.equal(record.breaker.state, 'closed');
    // The company's tools, not its decision endpoints.
    assert.equal(record.company_totals.questions, 5);
  });
});

describe('call path health: ids and windows', () => {
  it('finds the record by every id form, and 404s for another company, a malformed id or the wrong kind', async () => {
    const id = Number(endpointId);
    for (const form of [String(id), toBase64Id(id), app.running.services.ids.encrypt('decision_endpoint', id)]) {
      const response = await stats(`/api/decision-endpoints/${encodeURIComponent(form)}`);
      assert.equal(response.status, 200, `${form}: ${response.text}`);
      assert.equal(response.body.data.endpoint_id, endpointId);
    }
    const beta = await app.login('owner@beta.test');
    for (const [token, path] of [
      [beta, `/api/decision-endpoints/${endpointId}/stats`],
      [beta, `/api/agent-tools/${toolId}/stats`],
      [owner, '/api/decision-endpoints/zz-not-an-id/stats'],
      [owner, `/api/agent-tools/${app.running.services.ids.encrypt('agent', Number(toolId))}/stats`],
    ]) {
      const response = await app.request('GET', path, { token });
      assert.equal(response.status, 404, `${path}: ${response.text}`);
    }
    const viewer = await app.userWith(['view-agents']);
    assert.equal((await app.request('GET', `/api/agent-tools/${toolId}/stats`, { token: viewer })).status, 200);
    assert.equal(
      (await app.request('GET', `/api/decision-endpoints/${endpointId}/stats`, { token: viewer })).status,
      403,
    );
  });

  it('refuses a bad window naming the field and the value, and lists every bucket of an empty one', async () => {
    const path = `/api/decision-endpoints/${endpointId}`;
    const cases: Array<[string, string, RegExp]> = [
      ['bucket=week', 'bucket', /week/],
      ['from=yesterday', 'from', /ISO 8601.*"yesterday"/],
      [`bucket=minute&from=${new Date(Date.now() - 2 * 86_400_000).toISOString()}`, 'from', /24 hours/],
      [`to=${new Date(Date.now() + 3_600_000).toISOString()}`, 'to', /future/],
    ];
    for (const [query, field, text] of cases) {
      const response = await stats(path, query);
      assert.equal(response.status, 422, `${query}: ${response.text}`);
      assert.match(response.body.errors[field].join(' '), text, query);
    }
    const to = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 3 * 3_600_000);
    const from = new Date(to.getTime() - 10 * 60_000);
    const empty = await stats(path, `bucket=minute&from=${from.toISOString()}&to=${to.toISOString()}`);
    assert.equal(empty.status, 200, empty.text);
    assert.equal(empty.body.data.points.length, 10);
    assert.equal(empty.body.data.totals.questions, 0);
    assert.equal(empty.body.data.totals.answer_rate, null);
    assert.equal(empty.body.data.totals.added_p50_ms, null);
    assert.ok(empty.body.data.points.every((p: { questions: number }) => p.questions === 0));
  });
});

describe('call path health: retention', () => {
  it('keeps minutes a day and an hour and quarter hours 91 days', async () => {
    const row = (span: number, hoursAgo: number) =>
      app.sql(
        `INSERT INTO call_path_stats (kind, endpoint_id, span, bucket, company_id, answered)
         VALUES ('tool', 999999, $1::smallint, date_bin(make_interval(secs => $1::int), now() - make_interval(hours => $2::int),
           timestamptz '2000-01-01Z'), $3, 1)`,
        [span, hoursAgo, account.companyId],
      );
    await row(60, 24);
    await row(60, 26);
    await row(900, 90 * 24);
    await row(900, 92 * 24);
    const removed = await app.running.services.callPathStats.purge(
      app.running.services.contexts.forMaintenance('test retention'),
    );
    assert.equal(removed, 2);
    const kept = await app.sql(
      `SELECT span, round(extract(epoch FROM now() - bucket) / 3600)::int AS hours FROM call_path_stats
       WHERE endpoint_id = 999999 ORDER BY span`,
    );
    assert.deepEqual(kept, [
      { span: 60, hours: 24 },
      { span: 900, hours: 90 * 24 },
    ]);
  });
});

describe('call path health: a process stopping', () => {
  it('writes the counts it holds before it stops', async () => {
    // Written only once a minute: the two questions are still in memory when the process is asked to stop.
    const other = await startTestApp({ CALL_PATH_STATS_EVERY: '60s' });
    const token = await other.login('owner@acme.test');
    const acct = await other.providerAccount();
    const [row] = await other.sql('SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1', [
      acct.companyId,
    ]);
    const created = await other.request('POST', '/api/decision-endpoints', {
      token,
      body: { url: `${endpoint.url}/decide`, fallback_action: 'answer' },
    });
    assert.equal(created.status, 201, created.text);
    for (let i = 0; i < 2; i++) {
      const response = await postCallback(other.url, acct.authToken, '/api/telco/voice/inbound', {
        AccountSid: acct.sid,
        CallSid: callSid(),
        From: '+14155550177',
        To: row.phone_no,
      });
      assert.equal(response.status, 200);
    }
    assert.deepEqual(await other.sql('SELECT count(*)::int AS n FROM call_path_stats'), [{ n: 0 }]);
    const database = other.database;
    await other.stop();
    const client = new pg.Client({ connectionString: databaseUrl(database) });
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT span, answered FROM call_path_stats WHERE kind = $1 AND endpoint_id = $2 ORDER BY span',
        ['decision', Number(created.body.data.id)],
      );
      assert.deepEqual(rows, [
        { span: 60, answered: 2 },
        { span: 900, answered: 2 },
      ]);
    } finally {
      await client.end();
      await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    }
  });
});
