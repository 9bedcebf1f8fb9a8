import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toBase64Id } from '../src/kernel/ids.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// The oracle for date ranges here is PostgreSQL's own time-zone arithmetic,
// independent of the service's code.

// A fixed clock (Wednesday noon in New York), for the service, the demo data and the oracle alike,
// so no range depends on when the suite runs.
const FIXED_NOW = new Date('2026-11-18T17:00:00.000Z');
const NOW = `'${FIXED_NOW.toISOString()}'::timestamptz`;

let app: TestApp;
let owner: string;
let beta: string;
let gamma: string;
let ids: Record<string, number>;

before(async () => {
  app = await startTestApp({}, { clock: () => FIXED_NOW });
  owner = await app.login('owner@acme.test');
  beta = await app.login('owner@beta.test');
  gamma = await app.login('owner@gamma.test');
  ids = Object.fromEntries((await app.sql('SELECT name, id FROM companies')).map((r) => [r.name, r.id]));
});
after(() => app.close());

const appointments = (query: string, token = owner) =>
  app.request('GET', `/api/ai/dashboard/appointments${query}`, { token });

/** Appointment calls of a company whose start falls in [start, end), computed by PostgreSQL. */
async function expectedIds(company: number, startSql: string, endSql: string): Promise<number[]> {
  const rows = await app.sql(
    `WITH z AS (SELECT time_zone AS tz FROM companies WHERE id = $1)
     SELECT c.id FROM calls c, z WHERE c.company_id = $2 AND c.appointment_at IS NOT NULL
       AND c.started_at >= (${startSql}) AND c.started_at < (${endSql}) ORDER BY c.started_at DESC, c.id DESC`,
    [company, company],
  );
  return rows.map((r) => r.id);
}

const LOCAL_TODAY = `date_trunc('day', ${NOW} AT TIME ZONE z.tz)`;
const at = (local: string) => `(${local}) AT TIME ZONE z.tz`;

describe('GET /api/ai/dashboard/appointments', () => {
  it('defaults to Today in the company time zone, with the row shape documented', async () => {
    const res = await appointments('?per_page=100');
    assert.equal(res.status, 200);
    const want = await expectedIds(ids['Acme Agency'], at(LOCAL_TODAY), at(`${LOCAL_TODAY} + interval '1 day'`));
    assert.ok(want.length > 0, 'the demo data has appointments today');
    assert.deepEqual(
      res.body.data.records.map((r: any) => r.id),
      want,
    );
    const row = res.body.data.records[0];
    assert.deepEqual(Object.keys(row), [
      'id',
      'call_datetime',
      'agent_name',
      'numbers',
      'duration',
      'appointment',
      'status',
      'direction',
      'sentiment',
      'recording_available',
    ]);
    assert.match(row.call_datetime, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    assert.match(row.appointment, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    assert.equal(typeof row.duration, 'number');
    assert.equal(typeof row.recording_available, 'boolean');
    const [db] = await app.sql(
      `SELECT to_char(c.started_at AT TIME ZONE 'America/New_York', 'YYYY-MM-DD HH24:MI:SS') AS local, ` +
        `a.name FROM calls c LEFT JOIN agents a ON a.id = c.agent_id WHERE c.id = $1`,
      [row.id],
    );
    assert.equal(row.call_datetime, db.local);
    assert.equal(row.agent_name, db.name);
  });

  it('computes the named ranges like PostgreSQL does in the company zone', async () => {
    const cases: Array<[string, string, string]> = [
      ['Yesterday', at(`${LOCAL_TODAY} - interval '1 day'`), at(LOCAL_TODAY)],
      ['Last 7 Days', at(`${LOCAL_TODAY} - interval '6 days'`), NOW],
      ['Last 30 Days', at(`${LOCAL_TODAY} - interval '29 days'`), NOW],
      ['This Month', at(`date_trunc('month', ${NOW} AT TIME ZONE z.tz)`), NOW],
      [
        'Last Month',
        at(`date_trunc('month', ${NOW} AT TIME ZONE z.tz) - interval '1 month'`),
        at(`date_trunc('month', ${NOW} AT TIME ZONE z.tz)`),
      ],
      [
        'Last Year',
        at(`date_trunc('year', ${NOW} AT TIME ZONE z.tz) - interval '1 year'`),
        at(`date_trunc('year', ${NOW} AT TIME ZONE z.tz)`),
      ],
      ['This Week Mon', at(`date_trunc('week', ${NOW} AT TIME ZONE z.tz)`), NOW],
      [
        'Last Week Mon',
        at(`date_trunc('week', ${NOW} AT TIME ZONE z.tz) - interval '7 days'`),
        at(`date_trunc('week', ${NOW} AT TIME ZONE z.tz)`),
      ],
      [
        'Last Business Week',
        at(`date_trunc('week', ${NOW} AT TIME ZONE z.tz) - interval '7 days'`),
        at(`date_trunc('week', ${NOW} AT TIME ZONE z.tz) - interval '2 days'`),
      ],
    ];
    for (const company of ['Acme Agency', 'Gamma Solar']) {
      const token = company === 'Acme Agency' ? owner : gamma;
      for (const [name, start, end] of cases) {
        const res = await appointments(`?per_page=100&date_range=${encodeURIComponent(name)}`, token);
        assert.equal(res.status, 200, name);
        assert.deepEqual(
          res.body.data.records.map((r: any) => r.id),
          await expectedIds(ids[company], start, end),
          `${company} ${name}`,
        );
      }
    }
    const lastYear = await appointments('?per_page=100&date_range=Last%20Year');
    assert.ok(lastYear.body.data.records.length > 0, 'the demo data has appointments last year');
  });

  it('takes custom whole days, inclusive, and refuses bad dates', async () => {
    const [{ d }] = await app.sql(
      `SELECT to_char((${NOW} AT TIME ZONE 'America/New_York')::date - 10, 'YYYY-MM-DD') AS d`,
    );
    const [{ t }] = await app.sql(`SELECT to_char((${NOW} AT TIME ZONE 'America/New_York')::date, 'YYYY-MM-DD') AS t`);
    const res = await appointments(`?per_page=100&start_date=${d}&end_date=${t}`);
    assert.deepEqual(
      res.body.data.records.map((r: any) => r.id),
      await expectedIds(ids['Acme Agency'], at(`'${d}'::timestamp`), at(`'${t}'::timestamp + interval '1 day'`)),
    );
    for (const [query, field] of [
      ['?start_date=2026-02-30&end_date=2026-03-01', 'start_date'],
      ['?start_date=2026-03-01&end_date=03/05/2026', 'end_date'],
      ['?start_date=2026-03-05&end_date=2026-03-01', 'end_date'],
      ['?start_date=2026-03-05', 'end_date'],
      ['?end_date=2026-03-05', 'start_date'],
      ['?date_range=Fortnight', 'date_range'],
    ]) {
      const bad = await appointments(query);
      assert.equal(bad.status, 422, query);
      assert.ok(field in bad.body.errors, `${query}: ${bad.text}`);
    }
  });

  it('filters by agent (All or an id in any form), searches numbers and agent names', async () => {
    const base = '?per_page=100&date_range=Last%2030%20Days';
    const all = (await appointments(base)).body.data.records;
    assert.deepEqual((await appointments(`${base}&agent_id=All`)).body.data.records, all);
    const [agent] = await app.sql(
      'SELECT a.id, a.name FROM calls c JOIN agents a ON a.id = c.agent_id WHERE c.id = $1',
      [all[0].id],
    );
    for (const raw of [String(agent.id), toBase64Id(agent.id), app.running.services.ids.encrypt('agent', agent.id)]) {
      const rows = (await appointments(`${base}&agent_id=${encodeURIComponent(raw)}`)).body.data.records;
      assert.ok(rows.length > 0 && rows.every((r: any) => r.agent_name === agent.name), raw);
    }
    const [foreignAgent] = await app.sql('SELECT id FROM agents WHERE company_id = $1 LIMIT 1', [ids['Gamma Solar']]);
    const foreign = await appointments(`${base}&agent_id=${foreignAgent.id}`);
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, { success: false, message: 'Agent not found.' });
    const number = all[0].numbers.from.slice(-7);
    const byNumber = (await appointments(`${base}&search=${number}`)).body.data.records;
    assert.ok(byNumber.some((r: any) => r.id === all[0].id));
    assert.ok(byNumber.every((r: any) => r.numbers.from.includes(number) || r.numbers.to.includes(number)));
    const byAgent = (await appointments(`${base}&search=${encodeURIComponent(agent.name.toUpperCase())}`)).body.data
      .records;
    assert.ok(byAgent.length > 0 && byAgent.some((r: any) => r.agent_name === agent.name));
  });

  it('lets an agency read a child company; any other company is 403', async () => {
    const child = await appointments(`?per_page=100&date_range=Last%2030%20Days&company_id=${ids['Beta Clinic']}`);
    assert.equal(child.status, 200);
    const betaOwn = await appointments('?per_page=100&date_range=Last%2030%20Days', beta);
    assert.deepEqual(child.body.data.records, betaOwn.body.data.records);
    assert.ok(child.body.data.records.length > 0);
    assert.equal((await appointments(`?company_id=${ids['Gamma Solar']}`)).status, 403);
    const up = await appointments(`?company_id=${ids['Acme Agency']}`, beta);
    assert.equal(up.status, 403, 'a child cannot read its agency');
    assert.deepEqual(up.body, { success: false, message: 'This action is unauthorized.' });
    assert.equal((await appointments('?company_id=abc')).status, 422);
  });

  it('paginates (default 15, max 100)', async () => {
    const page1 = await appointments('?date_range=Last%20Year');
    assert.equal(page1.body.data.pagination.per_page, 15);
    const clamped = await appointments('?per_page=500&date_range=Last%2030%20Days');
    assert.equal(clamped.body.data.pagination.per_page, 100);
    const total = clamped.body.data.pagination.total;
    const p2 = await appointments('?per_page=5&page=2&date_range=Last%2030%20Days');
    assert.deepEqual(
      p2.body.data.records.map((r: any) => r.id),
      clamped.body.data.records.slice(5, 10).map((r: any) => r.id),
    );
    assert.equal(p2.body.data.pagination.last_page, Math.ceil(total / 5));
  });
});

describe('summary, call details, local presence', () => {
  it('summarises the same range', async () => {
    const res = await app.request('GET', '/api/ai/dashboard/summary?date_range=Last%2030%20Days', { token: owner });
    assert.equal(res.status, 200);
    const [want] = await app.sql(
      `WITH z AS (SELECT time_zone AS tz FROM companies WHERE id = $1)
       SELECT count(*)::int AS calls, count(*) FILTER (WHERE appointment_at IS NOT NULL)::int AS appointments,
              count(*) FILTER (WHERE status = 'completed' AND duration_seconds > 0)::int AS answered,
              coalesce(round(avg(duration_seconds)), 0)::int AS average,
              count(*) FILTER (WHERE sentiment = 'positive')::int AS positive
       FROM calls c, z WHERE company_id = $2 AND started_at >= ${at(`${LOCAL_TODAY} - interval '29 days'`)} AND started_at < ${NOW}`,
      [ids['Acme Agency'], ids['Acme Agency']],
    );
    const data = res.body.data;
    assert.equal(data.calls, want.calls);
    assert.equal(data.appointments, want.appointments);
    assert.equal(data.answered, want.answered);
    assert.equal(data.average_duration, want.average);
    assert.equal(data.sentiment.positive, want.positive);
    assert.equal(data.time_zone, 'America/New_York');
    assert.equal(
      (await app.request('GET', '/api/ai/dashboard/summary', { token: await app.login('supervisor@acme.test') }))
        .status,
      200,
    );
    const [agent] = await app.sql(
      'SELECT a.name FROM calls c JOIN agents a ON a.id = c.agent_id WHERE c.company_id = $1 LIMIT 1',
      [ids['Acme Agency']],
    );
    const searched = await app.request(
      'GET',
      `/api/ai/dashboard/summary?date_range=Last%20Year&search=${encodeURIComponent(agent.name)}`,
      { token: owner },
    );
    const [byAgent] = await app.sql(
      `WITH z AS (SELECT time_zone AS tz FROM companies WHERE id = $1)
       SELECT count(*)::int AS n FROM calls c JOIN agents a ON a.id = c.agent_id, z WHERE c.company_id = $2 AND a.name ILIKE $3
         AND c.started_at >= ${at(`date_trunc('year', ${NOW} AT TIME ZONE z.tz) - interval '1 year'`)}
         AND c.started_at < ${at(`date_trunc('year', ${NOW} AT TIME ZONE z.tz)`)}`,
      [ids['Acme Agency'], ids['Acme Agency'], `%${agent.name}%`],
    );
    assert.equal(searched.body.data.calls, byAgent.n);
  });

  it('returns one call with transcript, recording and custom fields, in any id form; others 404', async () => {
    const [call] = await app.sql(
      'SELECT id, transcript, custom_fields FROM calls WHERE company_id = $1 AND transcript IS NOT NULL LIMIT 1',
      [ids['Acme Agency']],
    );
    for (const raw of [String(call.id), toBase64Id(call.id), app.running.services.ids.encrypt('call', call.id)]) {
      const res = await app.request('GET', `/api/ai/dashboard/calls/${encodeURIComponent(raw)}`, { token: owner });
      assert.equal(res.status, 200, raw);
      assert.equal(res.body.data.transcript, call.transcript);
      assert.deepEqual(res.body.data.custom_fields, call.custom_fields, 'free keys are kept as they are');
    }
    const [betaCall] = await app.sql('SELECT id FROM calls WHERE company_id = $1 LIMIT 1', [ids['Beta Clinic']]);
    assert.equal(
      (await app.request('GET', `/api/ai/dashboard/calls/${betaCall.id}`, { token: owner })).status,
      200,
      'the agency sees its child',
    );
    assert.equal((await app.request('GET', `/api/ai/dashboard/calls/${call.id}`, { token: gamma })).status, 404);
    assert.equal((await app.request('GET', `/api/ai/dashboard/calls/${call.id}`, { token: beta })).status, 404);
    assert.equal((await app.request('GET', '/api/ai/dashboard/calls/x!', { token: owner })).status, 404);
  });

  it('a Call is one type: the list rows give the details fields too (read for the page at once), under view-ai-dashboard', async () => {
    const DETAILS =
      'id encryptedId agentId recordingUrl transcript disposition tags customFields contact { name email ' +
      'phone } summary successful customAnalysis analyzedAt appointment recordingAvailable';
    const list = await app.graphql(
      `{ appointmentCalls(filter: { dateRange: Last_Year }, perPage: 20) { records { ${DETAILS} __typename } } }`,
      {},
      owner,
    );
    assert.equal(list.body.errors, undefined, list.text);
    const rows = list.body.data.appointmentCalls.records as Array<Record<string, unknown>>;
    assert.ok(rows.length > 1, 'a page of rows');
    for (const row of rows.slice(0, 5)) {
      const one = await app.graphql(
        `query($id: ID!) { callDetails(id: $id) { ${DETAILS} __typename } }`,
        { id: String(row.id) },
        owner,
      );
      // The encrypted id is encrypted anew each time: the same call, another text.
      const { encryptedId, ...rest } = row;
      const { encryptedId: again, ...details } = one.body.data.callDetails;
      assert.deepEqual(rest, details, 'the same fields by either way');
      for (const text of [encryptedId, again])
        assert.equal(app.running.services.ids.decode(String(text), 'call'), row.id);
      assert.equal(row.__typename, 'Call');
    }
    // The list itself needs only a token; the fields beyond a row need what callDetails needs.
    const without = await app.userWith([], 'no dashboard');
    const plain = await app.graphql(
      '{ appointmentCalls(filter: { dateRange: Last_Year }) { records { id appointment } } }',
      {},
      without,
    );
    assert.equal(plain.body.errors, undefined, plain.text);
    const refused = await app.graphql(
      '{ appointmentCalls(filter: { dateRange: Last_Year }) { records { id summary } } }',
      {},
      without,
    );
    assert.equal(refused.body.errors[0].extensions.code, 'FORBIDDEN');
  });

  it('updates local presence: All or Unassigned', async () => {
    const res = await app.request('PATCH', '/api/ai/dashboard/settings/local-presence', {
      token: gamma,
      body: { number_ai_local_presence: 'Unassigned' },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      success: true,
      message: 'Local presence setting updated successfully',
      data: { new_value: 'Unassigned' },
    });
    const settings = async () =>
      (await app.sql('SELECT settings FROM companies WHERE id = $1', [ids['Gamma Solar']]))[0].settings;
    assert.equal((await settings()).numberAiLocalPresence, 'Unassigned');
    assert.equal((await settings()).minCarriersToFlag, 3, 'other settings are kept');
    for (const body of [{}, { number_ai_local_presence: 'Some' }, { number_ai_local_presence: 1 }]) {
      const bad = await app.request('PATCH', '/api/ai/dashboard/settings/local-presence', { token: gamma, body });
      assert.equal(bad.status, 422, JSON.stringify(body));
    }
    assert.equal((await settings()).numberAiLocalPresence, 'Unassigned');
    assert.equal(
      (
        await app.request('PUT', '/api/ai/dashboard/settings/local-presence', {
          token: gamma,
          body: { number_ai_local_presence: 'All' },
        })
      ).status,
      405,
    );
  });
});
