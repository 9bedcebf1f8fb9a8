import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { toBase64Id } from '../src/kernel/ids.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { postCallback } from './helpers/callbacks.js';
import { eventually, Receiver, sleep } from './helpers/receiver.js';
import { kill, startWorker } from './helpers/worker.js';

// What an inbound call's decision reads besides configuration, kept in memory (docs/adr/0095-call-facts-in-memory.md),
// black-box across API processes: B answers the provider's callbacks, changes are made through A (the test app) or by
// SQL. A change made with the triggers off (session_replication_role = replica) is not seen by B, so B reads no
// caller, agent or earlier decision per call; every change made another way is seen at B's next call after its
// notification. C keeps no contacts (CALL_PATH_CONTACTS=0) and reads its callers per call.

let app: TestApp;
let owner: string;
let b: ChildProcess & { url: string };
let c: ChildProcess & { url: string };
let account: { sid: string; authToken: string; companyId: number };
let number: { id: number; phone: string };
const endpoint = new Receiver();
let answer: Record<string, unknown> = { action: 'answer' };

const newSid = () => `CA${randomBytes(16).toString('hex')}`;
const newNumber = () => `+1415${String(1_000_000 + Math.floor(Math.random() * 8_999_999)).slice(0, 7)}`;
/** The decision requests the endpoint got, newest last. */
const asked = () =>
  endpoint.received
    .filter((r) => r.body.includes('"call.inbound"'))
    .map(
      (r) => JSON.parse(r.body).data as { call_sid: string; contact: Record<string, string> | null; agent_id: string },
    );
const inbound = async (base: string, from: string, sid = newSid()) => {
  const res = await postCallback(base, account.authToken, '/api/telco/voice/inbound', {
    AccountSid: account.sid,
    CallSid: sid,
    From: from,
    To: number.phone,
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return { sid, text, request: asked().find((r) => r.call_sid === sid) };
};
/** What B keeps, as its /metrics says. */
const kept = async (base: string, kind: string) => {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(new RegExp(`^call_path_kept\\{kind="${kind}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
};
const unannounced = (statement: string) =>
  app.sql(`DO $$ BEGIN SET LOCAL session_replication_role = replica; ${statement}; END $$`);

before(async () => {
  app = await startTestApp({ PROCESS_ROLE: 'api' });
  owner = await app.login('owner@acme.test');
  account = await app.providerAccount();
  [number] = await app.sql<{ id: number; phone: string }>(
    'SELECT id, phone_no AS phone FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1',
    [account.companyId],
  );
  await endpoint.start();
  endpoint.answer = () => ({ status: 200, body: JSON.stringify(answer) });
  const created = await app.request('POST', '/api/decision-endpoints', {
    token: owner,
    body: { url: `${endpoint.url}/decide`, fallback_action: 'reject' },
  });
  assert.equal(created.status, 201, created.text);
  [b, c] = await Promise.all([
    startWorker(app, { PROCESS_ROLE: 'api' }),
    startWorker(app, { PROCESS_ROLE: 'api', CALL_PATH_CONTACTS: '0' }),
  ]);
});
after(async () => {
  for (const p of [b, c]) if (p && p.exitCode === null && p.signalCode === null) await kill(p);
  await endpoint.close();
  await app?.close();
});

describe('the callers a decision names, kept in memory', () => {
  it('B names a contact changed unannounced only once told of it; C, keeping none, names it at once', async () => {
    const caller = newNumber();
    assert.equal((await inbound(b.url, caller)).request?.contact, null, 'a caller new to the company');
    // The call's record made the caller's contact; B is told of it and names it from its next call on. B loads its
    // directory at a call made while it listens, which on a busy machine its first call may come before.
    await eventually(
      async () => {
        if ((await kept(b.url, 'contacts')) > 0) return true;
        await inbound(b.url, caller);
        return undefined;
      },
      10_000,
      "B's directory",
    );
    const named = await eventually(
      async () => (await inbound(b.url, caller)).request?.contact ?? undefined,
      5000,
      'B to name the contact the record made',
    );
    assert.equal(named.first_name, null);
    await unannounced(
      `UPDATE contacts SET first_name = 'Hidden' WHERE company_id = ${account.companyId} AND phone_number = '${caller}'`,
    );
    assert.equal((await inbound(b.url, caller)).request?.contact?.first_name, null, 'B read no contact for the call');
    assert.equal((await inbound(c.url, caller)).request?.contact?.first_name, 'Hidden', 'C reads per call');
    // Announced: a change of the row by SQL with the triggers on.
    await app.sql(`UPDATE contacts SET first_name = 'Ada' WHERE company_id = $1 AND phone_number = $2`, [
      account.companyId,
      caller,
    ]);
    await eventually(
      async () => ((await inbound(b.url, caller)).request?.contact?.first_name === 'Ada' ? true : undefined),
      5000,
      'B to name the changed contact',
    );
  });

  it('names a contact made through the other process at its next call, and one a statement changing many changed', async () => {
    const caller = newNumber();
    const made = await app.request('POST', '/api/contacts', {
      token: owner,
      body: { phone_number: caller, first_name: 'Grace', email: 'grace@example.com' },
    });
    assert.equal(made.status, 201, made.text);
    await eventually(
      async () => ((await inbound(b.url, caller)).request?.contact?.first_name === 'Grace' ? true : undefined),
      5000,
      'B to name the new contact',
    );
    const named = (await inbound(b.url, caller)).request?.contact;
    assert.equal(named?.email, 'grace@example.com');
    // One statement over more than 32 contacts: B drops the company's directory and reads it again.
    await app.sql(
      `INSERT INTO contacts (company_id, phone_number, tags, custom_fields, created_at, updated_at)
       SELECT $1, '+1212555' || lpad(n::text, 4, '0'), '[]', '{}', now(), now() FROM generate_series(1, 40) n
       ON CONFLICT DO NOTHING`,
      [account.companyId],
    );
    const [{ many }] = await app.sql<{ many: number }>(
      `WITH changed AS (UPDATE contacts SET last_name = 'Hopper' WHERE company_id = $1 RETURNING 1)
       SELECT count(*)::int AS many FROM changed`,
      [account.companyId],
    );
    assert.ok(many > 32, `${many} contacts changed`);
    await eventually(
      async () => ((await inbound(b.url, caller)).request?.contact?.last_name === 'Hopper' ? true : undefined),
      5000,
      'B to name the contact the statement changed',
    );
  });
});

describe("the number's agent and the company's agents, kept in memory", () => {
  it("names the number's agent set through the other process, and takes an answer naming a new agent", async () => {
    const caller = newNumber();
    await inbound(b.url, caller);
    const made = await app.request('POST', '/api/agents', { token: owner, body: { name: 'Kept in memory' } });
    assert.equal(made.status, 201, made.text);
    const [{ id: agentId }] = await app.sql<{ id: number }>(
      'SELECT id FROM agents WHERE company_id = $1 AND name = $2',
      [account.companyId, 'Kept in memory'],
    );
    const [listed] = (
      await app.request('GET', '/api/phone-numbers?per_page=100', { token: owner })
    ).body.data.records.filter((n: { phone_no: string }) => n.phone_no === number.phone);
    const assigned = await app.request('PUT', `/api/phone-numbers/${listed.id}/chatbot`, {
      token: owner,
      body: { agent_id: made.body.data.id },
    });
    assert.equal(assigned.status, 200, assigned.text);
    await eventually(
      async () => ((await inbound(b.url, caller)).request?.agent_id === String(agentId) ? true : undefined),
      5000,
      "B to name the number's new agent",
    );
    // An agent made after B read the company's agents is one an answer may name.
    const later = await app.request('POST', '/api/agents', { token: owner, body: { name: 'Made later' } });
    const [{ id: laterId }] = await app.sql<{ id: number }>(
      'SELECT id FROM agents WHERE company_id = $1 AND name = $2',
      [account.companyId, 'Made later'],
    );
    assert.equal(later.status, 201, later.text);
    answer = { action: 'answer', agent_id: String(laterId) };
    try {
      await eventually(
        async () => ((await inbound(b.url, caller)).text.includes(`id="${laterId}"`) ? true : undefined),
        5000,
        "B to take the new agent in the endpoint's answer",
      );
    } finally {
      answer = { action: 'answer' };
    }
  });
});

describe('calls decided lately, kept in memory', () => {
  it('answers a call the other process decided from what it was told, without asking the endpoint again', async () => {
    const caller = newNumber();
    const first = await inbound(app.url, caller);
    await eventually(
      async () =>
        (
          await app.sql<{ n: number }>(
            'SELECT count(*)::int AS n FROM calls WHERE provider_call_id = $1 AND decided_by IS NOT NULL',
            [first.sid],
          )
        )[0].n === 1 || undefined,
      5000,
      'the decision recorded',
    );
    await sleep(200); // the commit's notification on its way to B
    const before = asked().length;
    const again = await inbound(b.url, caller, first.sid);
    assert.equal(again.text, first.text, 'the same instruction');
    assert.equal(asked().length, before, 'the endpoint is not asked again');
  });

  it('does not read the database for a call it was not told of (a decision written unannounced is not seen)', async () => {
    const sid = newSid();
    await unannounced(
      `INSERT INTO calls (company_id, provider_call_id, from_number, to_number, direction, status, started_at,
         created_at, updated_at, decided_by, decision_action)
       VALUES (${account.companyId}, '${sid}', '+14155550100', '${number.phone}', 'inbound', 'new', now(), now(), now(),
         'number', 'reject')`,
    );
    const before = asked().length;
    const answered = await inbound(b.url, '+14155550100', sid);
    assert.equal(asked().length, before + 1, 'B asked the endpoint');
    assert.doesNotMatch(answered.text, /<Reject/);
  });
});

describe('decisions recorded together', () => {
  it('records each of many calls answered at once once, with one contact per number and one call.started', async () => {
    const callers = Array.from({ length: 30 }, () => newNumber());
    const twice = newSid();
    const before = asked().length;
    const answers = await Promise.all([
      ...callers.map((caller) => inbound(b.url, caller)),
      inbound(b.url, callers[0], twice),
      inbound(b.url, callers[0], twice),
    ]);
    assert.equal(answers[30].text, answers[31].text, 'a call asked about twice at once has one answer');
    assert.ok(asked().length - before >= 31);
    const sids = answers.map((a) => a.sid);
    const recorded = await eventually(async () => {
      const rows = await app.sql<{ sid: string; decided_by: string; contact: string }>(
        `SELECT c.provider_call_id AS sid, c.decided_by, k.phone_number AS contact
         FROM calls c JOIN contacts k ON k.id = c.contact_id WHERE c.provider_call_id = ANY($1)`,
        [sids],
      );
      return rows.length === 31 ? rows : undefined;
    }, 5000);
    assert.ok(recorded.every((row) => row.decided_by === 'endpoint'));
    assert.deepEqual(
      recorded
        .filter((row) => row.sid !== twice)
        .map((row) => row.contact)
        .sort(),
      [...callers].sort(),
      "each call names its caller's contact",
    );
    const [{ contacts }] = await app.sql<{ contacts: number }>(
      'SELECT count(*)::int AS contacts FROM contacts WHERE company_id = $1 AND phone_number = ANY($2)',
      [account.companyId, callers],
    );
    assert.equal(contacts, 30, 'one contact per number');
    const started = await app.sql<{ sid: string; n: number }>(
      `SELECT c.provider_call_id AS sid, count(e.id)::int AS n FROM calls c
       LEFT JOIN events e ON e.type = 'call.started' AND e.company_id = c.company_id AND e.data ->> 'call_id' = c.id::text
       WHERE c.provider_call_id = ANY($1) GROUP BY c.provider_call_id`,
      [sids],
    );
    assert.deepEqual(
      started.filter((row) => row.n !== 1),
      [],
      'call.started once for each call',
    );
  });

  it('answers a repeat of a call answered and not yet recorded from memory, without asking again', async () => {
    const caller = newNumber();
    const first = await inbound(b.url, caller);
    const before = asked().length;
    const again = await inbound(b.url, caller, first.sid);
    assert.equal(again.text, first.text);
    assert.equal(asked().length, before, 'the endpoint is not asked again');
  });
});

describe("an agent's tools, kept in memory", () => {
  const tools = { first: new Receiver(), second: new Receiver(), third: new Receiver() };
  before(async () => {
    for (const [name, receiver] of Object.entries(tools)) {
      await receiver.start();
      receiver.answer = () => ({ status: 200, body: JSON.stringify({ result: name }) });
    }
  });
  after(async () => {
    for (const receiver of Object.values(tools)) await receiver.close();
  });

  it('runs a tool changed unannounced as it was; one changed through the other process, as it is now', async () => {
    const [{ id: agentId }] = await app.sql<{ id: number }>(
      'SELECT id FROM agents WHERE company_id = $1 ORDER BY id LIMIT 1',
      [account.companyId],
    );
    const made = await app.request('POST', `/api/agents/${toBase64Id(agentId)}/tools`, {
      token: owner,
      body: {
        name: 'kept_tool',
        description: 'Kept in memory',
        parameters: { type: 'object', properties: {} },
        url: `${tools.first.url}/tool`,
      },
    });
    assert.equal(made.status, 201, made.text);
    answer = { action: 'answer', agent_id: String(agentId) };
    const { sid } = await inbound(b.url, newNumber()).finally(() => (answer = { action: 'answer' }));
    await eventually(
      async () => (await app.sql('SELECT 1 FROM calls WHERE provider_call_id = $1', [sid])).length > 0 || undefined,
      5000,
      'the call recorded',
    );
    let sequence = 0;
    const tool = async () => {
      const res = await postCallback(b.url, account.authToken, '/api/telco/voice/tool', {
        AccountSid: account.sid,
        CallSid: sid,
        From: '+14155550100',
        To: number.phone,
        Direction: 'inbound',
        Tool: 'kept_tool',
        Arguments: '{}',
        Sequence: String(sequence++),
      });
      assert.equal(res.status, 200);
      return ((await res.json()) as { result: string }).result;
    };
    assert.equal(await tool(), 'first');
    await unannounced(`UPDATE agent_tools SET url = '${tools.second.url}/tool' WHERE name = 'kept_tool'`);
    assert.equal(await tool(), 'first', 'B asked the endpoint it kept');
    assert.equal(tools.second.received.length, 0);
    const moved = await app.request('PUT', `/api/agent-tools/${made.body.data.id}`, {
      token: owner,
      body: { url: `${tools.third.url}/tool` },
    });
    assert.equal(moved.status, 200, moved.text);
    await eventually(async () => ((await tool()) === 'third' ? true : undefined), 5000, 'B to ask the moved tool');
    // Each tool call is a turn of the transcript, written after its answer.
    await eventually(
      async () =>
        (
          await app.sql<{ n: number }>(
            `SELECT count(*)::int AS n FROM call_turns t JOIN calls c ON c.id = t.call_id
             WHERE c.provider_call_id = $1 AND t.speaker = 'tool'`,
            [sid],
          )
        )[0].n === sequence || undefined,
      5000,
      'a turn for each tool call',
    );
  });
});
