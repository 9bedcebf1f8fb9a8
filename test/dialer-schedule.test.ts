import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.js';
import { simCallsTo, until } from './helpers/dialer.js';

// A campaign's scheduled start (docs/dialer.md, "Starting later"), black-box: scheduled over the API, it dials
// nothing before its time, then starts by itself (campaign.started once) and dials its leads; a bad time is refused
// with the field, the value and what is accepted, and changes nothing; a scheduled campaign may be started at once,
// moved or canceled, and a canceled one never starts. The dialed calls carry the campaign's agent and each lead's
// variables, as the provider's instruction for the answered call.

let app: TestApp;
let owner: string;

const callsTo = (number: string) => simCallsTo(app, number);

async function campaign(name: string, leads: Array<Record<string, unknown>>, agentId?: number) {
  const created = await app.request('POST', '/api/campaigns', {
    token: owner,
    body: {
      name,
      ...(agentId ? { agent_id: String(agentId) } : {}),
      dialing: { hours_start: '00:00', hours_end: '24:00' },
    },
  });
  assert.equal(created.status, 201, created.text);
  const id = created.body.data.id as number;
  const added = await app.request('POST', `/api/campaigns/${id}/leads`, { token: owner, body: { leads } });
  assert.equal(added.status, 201, added.text);
  return id;
}

const view = async (id: number) => (await app.request('GET', `/api/campaigns/${id}`, { token: owner })).body.data;
const started = async (id: number) =>
  (
    await app.sql(
      "SELECT count(*)::int AS n FROM events WHERE type = 'campaign.started' AND data ->> 'campaign_id' = $1",
      [String(id)],
    )
  )[0].n;

before(async () => {
  app = await startTestApp({ TELCO_SIM_TIME_SCALE: '0.01', DIALER_TICK: '50ms', DIALER_CALLS_PER_SECOND: '10' });
  owner = await app.login('owner@acme.test');
});
after(() => app?.close());

describe('a scheduled start', () => {
  it('dials nothing before its time, then starts once by itself and dials with the agent and the variables', async () => {
    const { companyId } = await app.providerAccount();
    const [agent] = await app.sql('SELECT id FROM agents WHERE company_id = $1 ORDER BY id LIMIT 1', [companyId]);
    const numbers = ['+14155550301', '+14155550302'];
    const id = await campaign(
      'Monday morning',
      [
        { phone_number: numbers[0], first_name: 'Ann', variables: { plan: 'gold', seats: 3, vip: true } },
        { phone_number: numbers[1], variables: { note: 'says "hi" & <waves>' } },
      ],
      agent.id,
    );
    const at = new Date(Date.now() + 1500);
    const scheduled = await app.request('POST', `/api/campaigns/${id}/schedule`, {
      token: owner,
      body: { start_at: at.toISOString() },
    });
    assert.equal(scheduled.status, 200, scheduled.text);
    assert.equal(scheduled.body.message, 'Campaign scheduled.');
    assert.equal(scheduled.body.data.status, 'scheduled');
    assert.equal(scheduled.body.data.starts_at, at.toISOString());
    assert.equal(scheduled.body.data.started_at, null);
    // Several turns of the dialer pass before its time: nothing is dialed, nothing has started.
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal(callsTo(numbers[0]).length + callsTo(numbers[1]).length, 0);
    assert.equal(await started(id), 0);
    assert.equal((await view(id)).status, 'scheduled');
    const done = await until('the campaign to complete', async () => {
      const c = await view(id);
      return c.status === 'completed' && c;
    });
    assert.ok(Date.parse(done.started_at) >= at.getTime(), `started ${done.started_at}, scheduled ${at.toISOString()}`);
    assert.equal(await started(id), 1);
    for (const number of numbers) assert.equal(callsTo(number).length, 1, number);
    // The answered call's instruction: the campaign's agent, told the lead's variables (as text, in name order).
    assert.equal(
      callsTo(numbers[0])[0].twiml,
      `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Agent id="${agent.id}">` +
        '<Parameter name="plan" value="gold"/><Parameter name="seats" value="3"/><Parameter name="vip" value="true"/>' +
        '</Agent></Connect></Response>',
    );
    assert.match(
      callsTo(numbers[1])[0].twiml,
      /<Parameter name="note" value="says &quot;hi&quot; &amp; &lt;waves&gt;"\/>/,
    );
  });

  it('refuses a bad time with the field and the value, and changes nothing', async () => {
    const id = await campaign('Bad times', [{ phone_number: '+14155550311' }]);
    const before = await app.fingerprint();
    const far = new Date(Date.now() + 91 * 86_400_000).toISOString();
    const past = new Date(Date.now() - 3_600_000).toISOString();
    for (const [start_at, says] of [
      [past, `(got "${past}")`],
      [far, `(got "${far}")`],
    ]) {
      const res = await app.request('POST', `/api/campaigns/${id}/schedule`, { token: owner, body: { start_at } });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(Object.keys(res.body.errors), ['start_at']);
      assert.match(res.body.errors.start_at[0], /an ISO 8601 date-time with its offset, from now to 90 days ahead/);
      assert.ok(res.body.errors.start_at[0].includes(says), res.body.errors.start_at[0]);
    }
    for (const start_at of ['next monday', '2026-13-40T00:00:00Z', '2026-12-01 09:00']) {
      const res = await app.request('POST', `/api/campaigns/${id}/schedule`, { token: owner, body: { start_at } });
      assert.equal(res.status, 422, `${start_at}: ${res.text}`);
      assert.deepEqual(Object.keys(res.body.errors), ['start_at'], res.text);
      assert.ok(res.body.errors.start_at[0].includes(`(got "${start_at}")`), res.text);
    }
    const number = await app.request('POST', `/api/campaigns/${id}/schedule`, { token: owner, body: { start_at: 42 } });
    assert.equal(number.status, 422, number.text);
    assert.deepEqual(number.body.errors, { start_at: ['The start at field must be a string.'] });
    const none = await app.request('POST', `/api/campaigns/${id}/schedule`, { token: owner, body: {} });
    assert.equal(none.status, 422, none.text);
    assert.deepEqual(Object.keys(none.body.errors), ['start_at']);
    assert.equal(await app.fingerprint(), before);
  });

  it('is started at once, moved or canceled; a canceled one never starts, a running one is not scheduled', async () => {
    const soon = () => new Date(Date.now() + 3_600_000).toISOString();
    const now = await campaign('Now after all', [{ phone_number: '+14155550321' }]);
    await app.request('POST', `/api/campaigns/${now}/schedule`, { token: owner, body: { start_at: soon() } });
    const moved = soon();
    const again = await app.request('POST', `/api/campaigns/${now}/schedule`, {
      token: owner,
      body: { start_at: moved },
    });
    assert.equal(again.body.data.starts_at, moved);
    const start = await app.request('POST', `/api/campaigns/${now}/start`, { token: owner });
    assert.equal(start.status, 200, start.text);
    assert.equal(start.body.data.status, 'running');
    await until('its lead to be dialed', async () => callsTo('+14155550321').length === 1);
    const late = await app.request('POST', `/api/campaigns/${now}/schedule`, {
      token: owner,
      body: { start_at: soon() },
    });
    assert.equal(late.status, 409, late.text);
    assert.equal(late.body.message, 'The campaign is running; only a draft or scheduled campaign can be scheduled.');

    const dropped = await campaign('Never', [{ phone_number: '+14155550331' }]);
    await app.request('POST', `/api/campaigns/${dropped}/schedule`, {
      token: owner,
      body: { start_at: new Date(Date.now() + 400).toISOString() },
    });
    const canceled = await app.request('POST', `/api/campaigns/${dropped}/cancel`, { token: owner });
    assert.equal(canceled.status, 200, canceled.text);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal((await view(dropped)).status, 'canceled');
    assert.equal(await started(dropped), 0);
    assert.equal(callsTo('+14155550331').length, 0);
  });

  it("another company's campaign and a malformed id are not found; every id form is taken", async () => {
    const gamma = await app.login('owner@gamma.test');
    const theirs = await app.request('POST', '/api/campaigns', { token: gamma, body: { name: 'Theirs' } });
    const start_at = new Date(Date.now() + 3_600_000).toISOString();
    for (const path of [`/api/campaigns/${theirs.body.data.id}/schedule`, '/api/campaigns/not-an-id!/schedule']) {
      const res = await app.request('POST', path, { token: owner, body: { start_at } });
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.message, 'Campaign not found.');
    }
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await campaign(`Form ${i}`, [{ phone_number: `+1415555034${i}` }]));
    const forms = [
      String(ids[0]),
      Buffer.from(String(ids[1])).toString('base64'),
      app.running.services.ids.encrypt('campaign', ids[2]),
    ];
    for (const [i, form] of forms.entries()) {
      const res = await app.request('POST', `/api/campaigns/${encodeURIComponent(form)}/schedule`, {
        token: owner,
        body: { start_at },
      });
      assert.equal(res.status, 200, `${form}: ${res.text}`);
      assert.equal(res.body.data.id, ids[i]);
    }
  });
});
