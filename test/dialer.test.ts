import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from './helpers/app.js';
import { simCallsTo, until } from './helpers/dialer.js';

// The dialer (docs/dialer.md), black-box: campaigns started over the API dial their leads through the telco
// simulator, whose outcome is chosen by the number dialed (src/telco/outbound-calls.ts) and whose calls run at a
// hundredth of real time. Each outcome and its retries (never past the campaign's limit), the do-not-call list read at
// the moment of dialing, the concurrency cap and the provider account's pace (read at the simulator), calling hours
// in each lead's own time (a lead outside them waits for them; one whose zones never open together is never called),
// pause, resume and cancel, the progress counts adding up, campaign.completed once; and a dial whose dialer stopped
// between its claim and the provider's answer, found at the provider or dialed again, once.

let app: TestApp;
let owner: string;
const RATE = 4;

const sim = () => app.running.simulator!.outbound;
const callsTo = (number: string) => simCallsTo(app, number);

async function campaign(name: string, dialing: Record<string, unknown>, leads: Array<Record<string, unknown>>) {
  const created = await app.request('POST', '/api/campaigns', { token: owner, body: { name, dialing } });
  assert.equal(created.status, 201, created.text);
  const id = created.body.data.id as number;
  const added = await app.request('POST', `/api/campaigns/${id}/leads`, { token: owner, body: { leads } });
  assert.equal(added.status, 201, added.text);
  return id;
}

const progress = async (id: number) =>
  (await app.request('GET', `/api/campaigns/${id}/progress`, { token: owner })).body.data;
const leadsOf = async (id: number) =>
  app.sql(
    `SELECT c.phone_number, l.state, l.attempts, l.last_outcome, l.next_attempt_at FROM leads l
     JOIN contacts c ON c.id = l.contact_id WHERE l.campaign_id = $1 ORDER BY l.id`,
    [id],
  );
const ALL_DAY = { hours_start: '00:00', hours_end: '24:00' };

before(async () => {
  app = await startTestApp({
    TELCO_SIM_TIME_SCALE: '0.01',
    DIALER_TICK: '50ms',
    DIALER_CALLS_PER_SECOND: String(RATE),
  });
  owner = await app.login('owner@acme.test');
});
after(() => app?.close());

describe('the dialer', () => {
  it('records each outcome, retries no answer and busy up to the limit, reads the list when dialing, completes once', async () => {
    const numbers = {
      answered: '+14155550201',
      noAnswer: '+14155550206',
      busy: '+14155550207',
      voicemail: '+14155550208',
      failed: '+14155550209',
      refused: '+14155550299',
      listed: '+14155550211',
    };
    const id = await campaign(
      'Outcomes',
      { ...ALL_DAY, max_attempts: 2, retry_minutes: [30], retry_on: ['no_answer', 'busy'] },
      Object.values(numbers).map((phone_number) => ({ phone_number })),
    );
    // Listed after the upload: read when the lead is to be dialed.
    await app.request('POST', '/api/do-not-call', { token: owner, body: { phone_numbers: [numbers.listed] } });
    const started = await app.request('POST', `/api/campaigns/${id}/start`, { token: owner });
    assert.equal(started.status, 200, started.text);
    const first = await until('every first attempt to end', async () => {
      const p = await progress(id);
      return p.dialing === 0 && p.pending === 0 && p;
    });
    assert.deepEqual(first, {
      total: 7,
      pending: 0,
      dialing: 0,
      waiting: 2,
      answered: 1,
      no_answer: 0,
      busy: 0,
      voicemail: 1,
      failed: 2,
      do_not_call: 1,
      outside_hours: 0,
      canceled: 0,
      skipped: 0,
    });
    const rows = await leadsOf(id);
    const byNumber = Object.fromEntries(rows.map((r) => [r.phone_number, r]));
    assert.deepEqual(
      Object.values(numbers).map((n) => [byNumber[n].state, byNumber[n].attempts, byNumber[n].last_outcome]),
      [
        ['answered', 1, 'answered'],
        ['waiting', 1, 'no_answer'],
        ['waiting', 1, 'busy'],
        ['voicemail', 1, 'voicemail'],
        ['failed', 1, 'failed'],
        ['failed', 1, 'failed'],
        ['do_not_call', 0, null],
      ],
    );
    // The retry waits its 30 minutes from the call's end.
    const [waits] = await app.sql(
      `SELECT min(extract(epoch FROM l.next_attempt_at - a.ended_at))::int AS least,
         max(extract(epoch FROM l.next_attempt_at - a.ended_at))::int AS most
       FROM leads l JOIN lead_attempts a ON a.lead_id = l.id WHERE l.campaign_id = $1 AND l.state = 'waiting'`,
      [id],
    );
    assert.deepEqual(waits, { least: 1800, most: 1800 });
    const [refused] = await app.sql(
      `SELECT a.error, a.call_sid FROM lead_attempts a JOIN leads l ON l.id = a.lead_id JOIN contacts c
       ON c.id = l.contact_id WHERE c.phone_number = $1`,
      [numbers.refused],
    );
    assert.deepEqual(refused, { error: `The number ${numbers.refused} cannot be dialed.`, call_sid: null });
    assert.equal(callsTo(numbers.listed).length, 0, 'a listed number is never dialed');
    // The call's record has its answer: the agent's dashboard sees the campaign's calls.
    const [call] = await app.sql('SELECT direction, status, answered_by FROM calls WHERE provider_call_id = $1', [
      callsTo(numbers.voicemail)[0].sid,
    ]);
    assert.deepEqual(call, { direction: 'outbound', status: 'completed', answered_by: 'machine_end_beep' });

    // Half an hour on: the retries fall due.
    await app.sql(`UPDATE leads SET next_attempt_at = now() WHERE campaign_id = $1 AND state = 'waiting'`, [id]);
    const done = await until('the campaign to complete', async () => {
      const [c] = await app.sql('SELECT status FROM campaigns WHERE id = $1', [id]);
      return c.status === 'completed' && c;
    });
    assert.equal(done.status, 'completed');
    const last = Object.fromEntries((await leadsOf(id)).map((r) => [r.phone_number, [r.state, r.attempts]]));
    assert.deepEqual(last[numbers.noAnswer], ['no_answer', 2], 'its two attempts spent');
    assert.deepEqual(last[numbers.busy], ['busy', 2]);
    for (const [number, attempts] of Object.entries({
      ...Object.fromEntries(Object.values(numbers).map((n) => [n, 1])),
      [numbers.noAnswer]: 2,
      [numbers.busy]: 2,
      [numbers.listed]: 0,
    }))
      assert.equal(callsTo(number).length, number === numbers.refused ? 0 : attempts, `calls to ${number}`);
    const [events] = await app.sql(
      "SELECT count(*)::int AS n FROM events WHERE type = 'campaign.completed' AND data ->> 'campaign_id' = $1",
      [String(id)],
    );
    assert.equal(events.n, 1);
  });

  it('refuses bad dialing settings, naming each with its value and what is accepted, and makes nothing', async () => {
    const before = await app.fingerprint();
    const refused = await app.request('POST', '/api/campaigns', {
      token: owner,
      body: {
        name: 'Bad settings',
        dialing: { concurrency: 0, hours_start: '8am', calling_days: [0, 8], retry_on: ['answered'], ring_seconds: 5 },
      },
    });
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(refused.body.errors, {
      'dialing.concurrency': ['The dialing concurrency must be from 1 to 200 (got 0).'],
      'dialing.ring_seconds': ['The dialing ring seconds must be from 15 to 120 (got 5).'],
      'dialing.hours_start': ['The dialing hours start must be a time of day such as 08:00 (got "8am").'],
      'dialing.calling_days': ['The dialing calling days are 1 (Monday) to 7 (Sunday), at least one (got [0,8]).'],
      'dialing.retry_on': [
        'The dialing retry on field does not accept "answered"; it accepts "no_answer", "busy", "voicemail" or "failed".',
      ],
    });
    const notOurs = await app.request('POST', '/api/campaigns', {
      token: owner,
      body: { name: 'Not ours', dialing: { from_number: '+19995550100' } },
    });
    assert.deepEqual(notOurs.body.errors, {
      'dialing.from_number': ["The dialing from number must be one of the company's numbers."],
    });
    assert.equal(await app.fingerprint(), before);
  });

  it('keeps to the campaign concurrency and the provider account pace', async () => {
    const before = sim().calls.length;
    sim().maxLive = sim().live;
    const leads = Array.from({ length: 14 }, (_, i) => ({ phone_number: `+1415555${String(3000 + i * 10 + 1)}` }));
    const id = await campaign('Caps', { ...ALL_DAY, concurrency: 3 }, leads);
    // A dashboard follows the progress over a subscription: the counts now, then as calls end.
    const client = createClient({
      url: `${app.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${owner}` },
      retryAttempts: 0,
    });
    const seen: Array<Record<string, number>> = [];
    const unsubscribe = client.subscribe<{ campaignProgress: Record<string, number> }>(
      { query: `subscription { campaignProgress(id: "${id}") { total pending dialing answered } }` },
      { next: (m) => m.data && seen.push(m.data.campaignProgress), error: () => undefined, complete: () => undefined },
    );
    await until('the counts now', async () => seen.length > 0);
    assert.deepEqual(seen[0], { total: 14, pending: 14, dialing: 0, answered: 0 });
    await app.request('POST', `/api/campaigns/${id}/start`, { token: owner });
    await until('the campaign to complete', async () => {
      const [c] = await app.sql('SELECT status FROM campaigns WHERE id = $1', [id]);
      return c.status === 'completed';
    });
    const placed = sim().calls.slice(before);
    assert.equal(placed.length, 14, 'each lead dialed once');
    assert.ok(sim().maxLive <= 3, `at most 3 calls at once (saw ${sim().maxLive})`);
    assert.ok(sim().maxLive >= 2, `the campaign used its places (saw ${sim().maxLive})`);
    const times = placed.map((c) => c.placedAt).sort((a, b) => a - b);
    let most = 0;
    for (const [i, t] of times.entries()) most = Math.max(most, times.filter((u, j) => j >= i && u < t + 1000).length);
    assert.ok(most <= RATE, `at most ${RATE} dials in any second (saw ${most})`);
    assert.ok(most >= RATE - 1, `the pace is used, not wasted (saw at most ${most} in a second)`);
    const p = await progress(id);
    assert.deepEqual([p.total, p.answered], [14, 14]);
    await until('the subscription to see every call end', async () => seen.at(-1)?.answered === 14);
    assert.ok(seen.length >= 8, `the counts came as calls ended (${seen.length} times)`);
    // Every lead answers here: at each moment it is pending, dialing or answered, and the counts add up.
    for (const counts of seen) assert.equal(counts.pending + counts.dialing + counts.answered, counts.total);
    unsubscribe();
    await client.dispose();
  });

  it('pauses (calls finish, none placed), resumes, and cancels (the rest never dialed); the counts add up', async () => {
    const leads = Array.from({ length: 12 }, (_, i) => ({ phone_number: `+1415555${String(4000 + i * 10 + 1)}` }));
    const id = await campaign('Controls', { ...ALL_DAY, concurrency: 1 }, leads);
    assert.equal((await app.request('POST', `/api/campaigns/${id}/pause`, { token: owner })).status, 409);
    await app.request('POST', `/api/campaigns/${id}/start`, { token: owner });
    await until('a first call', async () => (await progress(id)).answered >= 1);
    const paused = await app.request('POST', `/api/campaigns/${id}/pause`, { token: owner });
    assert.equal(paused.body.data.status, 'paused');
    await until('the call on the line to end', async () => (await progress(id)).dialing === 0);
    const atPause = (await progress(id)).answered;
    const dialedAtPause = sim().calls.filter((c) => leads.some((l) => l.phone_number === c.to)).length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal((await progress(id)).answered, atPause, 'nothing dialed while paused');
    assert.equal(sim().calls.filter((c) => leads.some((l) => l.phone_number === c.to)).length, dialedAtPause);
    await app.request('POST', `/api/campaigns/${id}/resume`, { token: owner });
    await until('a call after resuming', async () => (await progress(id)).answered > atPause);
    const canceled = await app.request('POST', `/api/campaigns/${id}/cancel`, { token: owner });
    assert.equal(canceled.body.data.status, 'canceled');
    await until('the last call to end', async () => (await progress(id)).dialing === 0);
    const dialed = sim().calls.filter((c) => leads.some((l) => l.phone_number === c.to)).length;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const p = await progress(id);
    assert.equal(p.answered + p.canceled, 12, JSON.stringify(p));
    assert.ok(p.canceled > 0);
    assert.equal(p.answered, dialed, 'a canceled lead is never dialed');
    assert.equal(
      sim().calls.filter((c) => leads.some((l) => l.phone_number === c.to)).length,
      dialed,
      'nothing dialed after the cancel',
    );
    const [c] = await app.sql('SELECT status FROM campaigns WHERE id = $1', [id]);
    assert.equal(c.status, 'canceled', 'a canceled campaign does not complete');
  });

  it('calls each lead in its own hours: one outside them waits for their opening; one whose zones never meet, never', async () => {
    const hour = new Date().getUTCHours();
    // A window of an hour that is not open now in UTC (later today, or earlier: then it opens tomorrow).
    const start = hour <= 20 ? hour + 2 : hour - 3;
    const hh = (h: number) => `${String(h).padStart(2, '0')}:00`;
    // A zone whose wall clock is inside that window now: Etc/GMT-N is N hours ahead of UTC.
    const offset = start - hour;
    const inside = offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
    const id = await campaign('Hours', { hours_start: hh(start), hours_end: hh(start + 1) }, [
      { phone_number: '+14155550501', time_zone: 'UTC' },
      { phone_number: '+14155550511', time_zone: inside },
      { phone_number: '+18005550100' },
    ]);
    await app.request('POST', `/api/campaigns/${id}/start`, { token: owner });
    await until('the lead inside its hours to be answered', async () => (await progress(id)).answered === 1);
    await until(
      'the toll-free lead to be found outside any hours',
      async () => (await progress(id)).outside_hours === 1,
    );
    const rows = Object.fromEntries((await leadsOf(id)).map((r) => [r.phone_number, r]));
    assert.equal(rows['+14155550501'].state, 'pending');
    assert.equal(rows['+14155550501'].attempts, 0);
    const opens = new Date();
    opens.setUTCHours(start, 0, 0, 0);
    if (opens.getTime() <= Date.now()) opens.setUTCDate(opens.getUTCDate() + 1);
    assert.equal(rows['+14155550501'].next_attempt_at.toISOString(), opens.toISOString(), 'due when its hours open');
    assert.equal(callsTo('+14155550501').length, 0);
    assert.equal(callsTo('+18005550100').length, 0, 'a toll-free number is in zones whose hours never meet');
    await app.request('POST', `/api/campaigns/${id}/cancel`, { token: owner });
  });

  it('a dial whose dialer stopped after its claim: found at the provider, or dialed again as the same attempt', async () => {
    const id = await campaign('Recovery', { ...ALL_DAY }, [
      { phone_number: '+14155550601' },
      { phone_number: '+14155550611' },
    ]);
    // As a dialer that died would leave them: each lead claimed (attempt 1, dialing) under a lease now past; the
    // first one's call placed at the provider, its answer never recorded; the second never sent.
    const [acme] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
    const leads = await app.sql(
      `SELECT l.id, c.phone_number FROM leads l JOIN contacts c ON c.id = l.contact_id WHERE l.campaign_id = $1
       ORDER BY l.id`,
      [id],
    );
    for (const lead of leads) {
      await app.sql(`UPDATE leads SET state = 'dialing', attempts = 1 WHERE id = $1`, [lead.id]);
      await app.sql(
        `INSERT INTO lead_attempts (company_id, lead_id, campaign_id, attempt, state, dialed_at, lease_until,
           created_at, updated_at) VALUES ($1, $2, $3, 1, 'dialing', now() - interval '2 minutes',
           now() - interval '1 minute', now(), now())`,
        [acme.id, lead.id, id],
      );
    }
    const account = await app.providerAccount();
    const [{ phone_no: from }] = await app.sql('SELECT phone_no FROM phone_numbers WHERE company_id = $1 LIMIT 1', [
      acme.id,
    ]);
    const placed = await fetch(`${app.running.telcoBaseUrl}/2010-04-01/Accounts/${account.sid}/Calls.json`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${account.sid}:${account.authToken}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        From: from,
        To: '+14155550601',
        StatusCallback: `${app.url}/api/telco/voice/status`,
      }),
    });
    assert.equal(placed.status, 201);
    await app.request('POST', `/api/campaigns/${id}/start`, { token: owner });
    await until('the campaign to complete', async () => {
      const [c] = await app.sql('SELECT status FROM campaigns WHERE id = $1', [id]);
      return c.status === 'completed';
    });
    const attempts = await app.sql(
      `SELECT c.phone_number, a.attempt, a.outcome, a.call_sid FROM lead_attempts a JOIN leads l ON l.id = a.lead_id
       JOIN contacts c ON c.id = l.contact_id WHERE a.campaign_id = $1 ORDER BY c.phone_number`,
      [id],
    );
    assert.deepEqual(
      attempts.map((a) => [a.phone_number, a.attempt, a.outcome]),
      [
        ['+14155550601', 1, 'answered'],
        ['+14155550611', 1, 'answered'],
      ],
    );
    assert.equal(callsTo('+14155550601').length, 1, 'the call placed before the stop is adopted, not placed again');
    assert.equal(attempts[0].call_sid, callsTo('+14155550601')[0].sid);
    assert.equal(callsTo('+14155550611').length, 1, 'the dial never sent is sent once');
  });
});
