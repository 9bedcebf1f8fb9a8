import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from './helpers/app.js';
import { simCallsTo, until } from './helpers/dialer.js';
import { Receiver } from './helpers/receiver.js';

// The pre-dial decision (docs/dialer.md, "Asking before each dial"), black-box: a campaign names one of the company's
// decision endpoints (a real server on loopback); before each dial the dialer asks it, signed (checked with the
// standardwebhooks library), about the lead. `dial` places the call with the answer's variables over the lead's own
// (read in the instruction the simulator received); `skip` ends the lead `skipped` with the reason and places no call;
// an error, an answer that does not validate or none in time gives the campaign's fallback, `dial` or `skip`. Each
// attempt keeps its decision (GET /api/leads/{id}/attempts), the endpoint's record counts the questions, and a
// campaign cannot name another company's endpoint.

let app: TestApp;
let owner: string;
let endpoint: Receiver;
let endpointId: string;
let secret: string;
let agentId: number;

const callsTo = (number: string) => simCallsTo(app, number);

/** What the endpoint answers, by the dialed number's last two digits. */
function answer(phoneNumber: string) {
  switch (phoneNumber.slice(-2)) {
    case '01':
      return { body: JSON.stringify({ action: 'dial', variables: { offer: 'winter-10', plan: 'platinum' } }) };
    case '02':
      return { body: JSON.stringify({ action: 'skip', reason: 'renewed yesterday' }) };
    case '03':
      return { status: 503, body: 'down' };
    case '04':
      return { body: JSON.stringify({ action: 'dial', variables: { 'not a name': 'x' } }) };
    default:
      return { hang: true };
  }
}

async function runCampaign(name: string, fallback: string, numbers: string[]) {
  const created = await app.request('POST', '/api/campaigns', {
    token: owner,
    body: {
      name,
      agent_id: String(agentId),
      dialing: {
        hours_start: '00:00',
        hours_end: '24:00',
        max_attempts: 1,
        predial_endpoint_id: endpointId,
        predial_fallback: fallback,
      },
    },
  });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(
    [created.body.data.dialing.predial_endpoint_id, created.body.data.dialing.predial_fallback],
    [endpointId, fallback],
  );
  const id = created.body.data.id as number;
  const leads = numbers.map((phone_number) => ({ phone_number, variables: { plan: 'gold', seats: 2 } }));
  const added = await app.request('POST', `/api/campaigns/${id}/leads`, { token: owner, body: { leads } });
  assert.equal(added.status, 201, added.text);
  await app.request('POST', `/api/campaigns/${id}/start`, { token: owner });
  await until('the campaign to complete', async () => {
    const c = await app.request('GET', `/api/campaigns/${id}`, { token: owner });
    return c.body.data.status === 'completed';
  });
  const rows = await app.sql(
    `SELECT l.id, c.phone_number, l.state FROM leads l JOIN contacts c ON c.id = l.contact_id
     WHERE l.campaign_id = $1 ORDER BY l.id`,
    [id],
  );
  return { id, leads: Object.fromEntries(rows.map((r) => [r.phone_number as string, r])) };
}

const attemptsOf = async (leadId: number | string, token = owner) =>
  app.request('GET', `/api/leads/${encodeURIComponent(String(leadId))}/attempts`, { token });

before(async () => {
  app = await startTestApp({
    TELCO_SIM_TIME_SCALE: '0.01',
    DIALER_TICK: '50ms',
    DIALER_CALLS_PER_SECOND: '10',
    CALL_PATH_STATS_EVERY: '200ms',
  });
  owner = await app.login('owner@acme.test');
  const { companyId } = await app.providerAccount();
  [{ id: agentId }] = await app.sql('SELECT id FROM agents WHERE company_id = $1 ORDER BY id LIMIT 1', [companyId]);
  endpoint = await new Receiver().start();
  // Its connection is warmed (an OPTIONS request, no body) when it is saved.
  endpoint.answer = (request) => (request.body ? answer(JSON.parse(request.body).data.phone_number) : { status: 204 });
  const created = await app.request('POST', '/api/decision-endpoints', {
    token: owner,
    body: { url: `${endpoint.url}/predial`, deadline_ms: 400, fallback_action: 'answer' },
  });
  assert.equal(created.status, 201, created.text);
  endpointId = created.body.data.id;
  secret = created.body.data.secret;
});
after(async () => {
  await endpoint?.close();
  await app?.close();
});

describe('the pre-dial decision', () => {
  it('dials with the answer’s variables, skips, and falls back to dial; each attempt keeps its decision', async () => {
    const numbers = ['+14155550401', '+14155550402', '+14155550403', '+14155550404', '+14155550405'];
    const { id, leads } = await runCampaign('Asked first', 'dial', numbers);
    // Each lead asked once, signed with the endpoint's secret, with what its agent would be told.
    const asked = endpoint.received.filter((r) => r.body && JSON.parse(r.body).data.campaign_id === String(id));
    assert.equal(asked.length, 5);
    for (const request of asked) {
      const body = new StandardWebhook(secret).verify(request.body, request.headers as Record<string, string>) as {
        type: string;
        data: Record<string, unknown>;
      };
      assert.equal(body.type, 'lead.predial');
      const number = body.data.phone_number as string;
      assert.deepEqual(body.data, {
        campaign_id: String(id),
        lead_id: String(leads[number].id),
        attempt: 1,
        phone_number: number,
        from: body.data.from,
        agent_id: String(agentId),
        contact: body.data.contact,
        variables: { plan: 'gold', seats: '2' },
        deadline_ms: 400,
      });
      assert.match(body.data.from as string, /^\+\d+$/);
    }
    assert.deepEqual(
      numbers.map((n) => [leads[n].state, callsTo(n).length]),
      [
        ['answered', 1],
        ['skipped', 0],
        ['answered', 1],
        ['answered', 1],
        ['answered', 1],
      ],
    );
    // The answer's variables over the lead's own.
    assert.equal(
      callsTo(numbers[0])[0].twiml,
      `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Agent id="${agentId}">` +
        '<Parameter name="offer" value="winter-10"/><Parameter name="plan" value="platinum"/>' +
        '<Parameter name="seats" value="2"/></Agent></Connect></Response>',
    );
    assert.doesNotMatch(callsTo(numbers[2])[0].twiml, /offer/);
    const decisions = [];
    for (const number of numbers) {
      const res = await attemptsOf(leads[number].id);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.length, 1);
      decisions.push(res.body.data[0]);
    }
    const [dialed, skipped, failed, invalid, late] = decisions;
    assert.equal(dialed.outcome, 'answered');
    assert.equal(typeof dialed.call_id, 'number');
    assert.match(dialed.call_sid, /^CA/);
    assert.deepEqual(
      { ...dialed.decision, latency_ms: 0 },
      {
        decided_by: 'endpoint',
        action: 'dial',
        variables: { offer: 'winter-10', plan: 'platinum' },
        fallback_reason: null,
        reason: null,
        latency_ms: 0,
      },
    );
    assert.deepEqual(
      { ...skipped, dialed_at: 0, ended_at: 0, decision: { ...skipped.decision, latency_ms: 0 } },
      {
        attempt: 1,
        state: 'ended',
        outcome: 'skipped',
        error: 'renewed yesterday',
        call_id: null,
        call_sid: null,
        dialed_at: 0,
        ended_at: 0,
        decision: {
          decided_by: 'endpoint',
          action: 'skip',
          variables: {},
          fallback_reason: null,
          reason: 'renewed yesterday',
          latency_ms: 0,
        },
      },
    );
    assert.deepEqual(
      [failed, invalid, late].map((a) => [
        a.outcome,
        a.decision.decided_by,
        a.decision.action,
        a.decision.fallback_reason,
      ]),
      [
        ['answered', 'fallback', 'dial', 'error'],
        ['answered', 'fallback', 'dial', 'invalid'],
        ['answered', 'fallback', 'dial', 'timeout'],
      ],
    );
    assert.equal(failed.decision.reason, 'the endpoint answered HTTP 503');
    assert.match(invalid.decision.reason, /^the answer does not validate: /);
    assert.ok(late.decision.latency_ms >= 350, `a timeout after ${late.decision.latency_ms} ms`);
    const progress = await app.request('GET', `/api/campaigns/${id}/progress`, { token: owner });
    assert.equal(progress.body.data.skipped, 1);
    assert.equal(progress.body.data.answered, 4);
    assert.equal(progress.body.data.total, 5);
    const [event] = await app.sql("SELECT data FROM events WHERE type = 'lead.called' AND data ->> 'lead_id' = $1", [
      String(leads[numbers[1]].id),
    ]);
    assert.deepEqual(
      [event.data.outcome, event.data.error, event.data.state, event.data.call_id],
      ['skipped', 'renewed yesterday', 'skipped', null],
    );
  });

  it('skips on its fallback when so set, and the endpoint’s record counts every question', async () => {
    const numbers = ['+14155551403', '+14155551405'];
    const { leads } = await runCampaign('Skip unless told', 'skip', numbers);
    assert.deepEqual(
      numbers.map((n) => [leads[n].state, callsTo(n).length]),
      [
        ['skipped', 0],
        ['skipped', 0],
      ],
    );
    const reasons = [];
    for (const n of numbers) reasons.push((await attemptsOf(leads[n].id)).body.data[0].decision.fallback_reason);
    assert.deepEqual(reasons, ['error', 'timeout']);
    const totals = await until('the record to count the questions', async () => {
      const stats = await app.request('GET', `/api/decision-endpoints/${endpointId}/stats?bucket=minute`, {
        token: owner,
      });
      const t = stats.body.data.totals;
      return t.questions === 7 && t;
    });
    assert.deepEqual([totals.answered, totals.error, totals.invalid, totals.timeout], [2, 2, 1, 2]);
  });

  it("refuses another company's endpoint and a bad fallback; lead attempts are the company's own", async () => {
    const gamma = await app.login('owner@gamma.test');
    const theirs = await app.request('POST', '/api/decision-endpoints', {
      token: gamma,
      body: { url: `${endpoint.url}/theirs`, fallback_action: 'reject' },
    });
    assert.equal(theirs.status, 201, theirs.text);
    const before = await app.fingerprint();
    for (const [dialing, field, says] of [
      [{ predial_endpoint_id: theirs.body.data.id }, 'dialing.predial_endpoint_id', `(got "${theirs.body.data.id}")`],
      [{ predial_endpoint_id: 'not-an-id!' }, 'dialing.predial_endpoint_id', '(got "not-an-id!")'],
      [{ predial_fallback: 'maybe' }, 'dialing.predial_fallback', 'maybe'],
    ] as const) {
      const res = await app.request('POST', '/api/campaigns', { token: owner, body: { name: 'Bad', dialing } });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(Object.keys(res.body.errors), [field], res.text);
      assert.ok(res.body.errors[field][0].includes(says), res.text);
    }
    assert.equal(await app.fingerprint(), before);
    const [lead] = await app.sql(
      "SELECT l.id FROM leads l JOIN lead_attempts a ON a.lead_id = l.id WHERE l.state = 'skipped' ORDER BY l.id LIMIT 1",
    );
    for (const [path, token] of [
      [lead.id, gamma],
      ['not-an-id!', owner],
      [987654321, owner],
    ] as const) {
      const res = await attemptsOf(path, token);
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.message, 'Lead not found.');
    }
    for (const form of [
      String(lead.id),
      Buffer.from(String(lead.id)).toString('base64'),
      app.running.services.ids.encrypt('lead', lead.id),
    ]) {
      const res = await attemptsOf(form);
      assert.equal(res.status, 200, `${form}: ${res.text}`);
      assert.equal(res.body.data[0].outcome, 'skipped');
    }
  });
});
