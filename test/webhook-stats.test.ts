import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toBase64Id } from '../src/kernel/ids.js';
import { ATTEMPT_OUTCOMES, LATENCY_SLOTS, latencySlot } from '../src/kernel/attempt-outcome.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually, Receiver } from './helpers/receiver.js';

// Endpoint health: each webhook's record over time, kept by the engine as it settles attempts. Real endpoints on
// loopback answer every way an attempt can end (2xx, 4xx, 5xx, no answer in time, a refused connection, a broker
// that refuses the message); once every delivery has settled, the record (REST and GraphQL alike) equals a count of
// the attempts log, outcome by outcome, with the company's totals beside it. Then the window's rules, 404s, an empty
// window, and buckets across a day's end and a daylight-saving change in the company's zone.

let app: TestApp;
let owner: string;
const receivers: Receiver[] = [];
/** Each webhook by the outcome all its attempts have. */
const hooks = new Map<string, number>();

async function createHook(title: string, url: string): Promise<number> {
  const res = await app.request('POST', '/api/webhooks', {
    token: owner,
    body: { title, url, events: ['agent.created'] },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

async function receiver(answer: Receiver['answer']): Promise<string> {
  const r = await new Receiver().start();
  r.answer = answer;
  receivers.push(r);
  return `${r.url}/hook`;
}

/** The attempts log of a webhook: every finished attempt, with its status, error and time. */
const attemptsOf = (webhookId: number) =>
  app.sql<{ status_code: number | null; error: string | null; duration_ms: number }>(
    `SELECT a.status_code, a.error, a.duration_ms FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
     WHERE d.webhook_id = $1 AND a.finished_at IS NOT NULL`,
    [webhookId],
  );

const FIGURES =
  'attempts success clientError serverError timeout network brokerRefused interrupted failed successRate p50Ms p95Ms p99Ms';

before(async () => {
  app = await startTestApp({ WEBHOOK_RETRY_DELAYS: '100ms,100ms,100ms,100ms', WEBHOOK_TIMEOUT: '1s' });
  owner = await app.login('owner@acme.test');
  hooks.set('success', await createHook('answers', await receiver(() => ({ status: 200, delayMs: 60 }))));
  hooks.set('client_error', await createHook('refuses', await receiver(() => ({ status: 422 }))));
  hooks.set('server_error', await createHook('breaks', await receiver(() => ({ status: 503 }))));
  hooks.set('timeout', await createHook('hangs', await receiver(() => ({ hang: true }))));
  hooks.set('network', await createHook('is gone', 'http://127.0.0.1:1/hook'));
  hooks.set(
    'broker_refused',
    await createHook('no exchange', 'amqp://guest:guest@127.0.0.1:5672/%2F?exchange=sb-stats-no-such-exchange'),
  );
  for (const name of ['Ada', 'Grace', 'Edsger'])
    assert.equal((await app.request('POST', '/api/agents', { token: owner, body: { name } })).status, 201);
  // Every delivery settled: succeeded, or failed after its five attempts.
  await eventually(
    async () => {
      const [{ n }] = await app.sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ANY($1::int[]) AND status = 'pending'`,
        [[...hooks.values()]],
      );
      return n === 0 ? true : undefined;
    },
    60_000,
    'every delivery to settle',
  );
});
after(async () => {
  for (const r of receivers) await r.close();
  await app.close();
});

describe('endpoint health: the record over time', () => {
  it('equals the attempts log, outcome by outcome, over REST and GraphQL, with the company beside it', async () => {
    let companyAttempts = 0;
    for (const [outcome, id] of hooks) {
      const log = await attemptsOf(id);
      assert.ok(log.length >= 3, `${outcome}: attempts were made`);
      companyAttempts += log.length;
      const rest = await app.request('GET', `/api/webhooks/${id}/stats?bucket=minute`, { token: owner });
      assert.equal(rest.status, 200, rest.text);
      const stats = rest.body.data;
      const expected = Object.fromEntries(ATTEMPT_OUTCOMES.map((o) => [o, o === outcome ? log.length : 0]));
      const [{ failed }] = await app.sql<{ failed: number }>(
        `SELECT count(*)::int AS failed FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'failed'`,
        [id],
      );
      assert.deepEqual(
        Object.fromEntries(ATTEMPT_OUTCOMES.map((o) => [o, stats.totals[o]])),
        expected,
        `${outcome}: the counts by outcome`,
      );
      assert.equal(stats.totals.attempts, log.length);
      assert.equal(stats.totals.failed, failed, `${outcome}: deliveries that failed`);
      assert.equal(stats.totals.failed, outcome === 'success' ? 0 : 3);
      assert.equal(stats.totals.success_rate, outcome === 'success' ? 1 : 0);
      assert.equal(stats.waiting, 0);
      // Every bucket's counts add up to the totals; the buckets are whole minutes, oldest first.
      assert.equal(
        stats.points.reduce((n: number, p: { attempts: number }) => n + p.attempts, 0),
        log.length,
      );
      const starts = stats.points.map((p: { at: string }) => Date.parse(p.at));
      assert.ok(starts.every((t: number, i: number) => t % 60_000 === 0 && (i === 0 || t - starts[i - 1] === 60_000)));
      // The answer times: the histogram slot of the log's median is the median's bound.
      const times = log.map((a) => a.duration_ms).sort((a, b) => a - b);
      const slot = latencySlot(times[Math.ceil(times.length / 2) - 1]);
      assert.ok(slot < LATENCY_SLOTS);
      if (outcome === 'success')
        assert.ok(stats.totals.p50_ms >= 50 && stats.totals.p50_ms <= 250, stats.totals.p50_ms);
      // GraphQL serves the same record.
      const gql = await app.graphql(
        `query($id: ID!) { webhookStats(id: $id, bucket: minute) { totals { ${FIGURES} } points { at attempts } } }`,
        { id: String(id) },
        owner,
      );
      assert.equal(gql.body.errors, undefined, JSON.stringify(gql.body.errors));
      assert.equal(gql.body.data.webhookStats.totals.attempts, log.length);
      assert.equal(gql.body.data.webhookStats.totals[outcome.replace(/_(.)/g, (_, c) => c.toUpperCase())], log.length);
      assert.equal(gql.body.data.webhookStats.points.length, stats.points.length);
      // Hour buckets hold the same attempts.
      const hourly = await app.request('GET', `/api/webhooks/${toBase64Id(id)}/stats?bucket=hour`, { token: owner });
      assert.equal(hourly.status, 200, hourly.text);
      assert.equal(hourly.body.data.totals.attempts, log.length);
    }
    // The company's totals: every attempt of its webhooks, beside each webhook's and on their own.
    const all = await app.request('GET', '/api/webhooks/stats?bucket=minute', { token: owner });
    assert.equal(all.status, 200, all.text);
    const [{ n: logged }] = await app.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
       JOIN users u ON u.company_id = d.company_id WHERE u.email = 'owner@acme.test' AND a.finished_at IS NOT NULL`,
    );
    assert.equal(all.body.data.totals.attempts, logged);
    assert.ok(logged >= companyAttempts);
    assert.equal(all.body.data.webhook_id, null);
    const one = await app.request('GET', `/api/webhooks/${hooks.get('success')}/stats?bucket=minute`, { token: owner });
    assert.deepEqual(one.body.data.company_totals, all.body.data.totals);
  });

  it('takes every id form, and is 404 for another company’s webhook and a malformed id', async () => {
    const id = hooks.get('success')!;
    for (const form of [String(id), toBase64Id(id), app.running.services.ids.encrypt('webhook', id)])
      assert.equal((await app.request('GET', `/api/webhooks/${form}/stats`, { token: owner })).status, 200, form);
    const other = await app.login('owner@gamma.test');
    const theirs = await app.request('GET', `/api/webhooks/${id}/stats`, { token: other });
    assert.equal(theirs.status, 404, theirs.text);
    for (const bad of ['nope', '0', '-1', '99999999999999999999'])
      assert.equal((await app.request('GET', `/api/webhooks/${bad}/stats`, { token: owner })).status, 404, bad);
  });

  it('refuses a window it cannot answer, naming the field and the value, and changes nothing', async () => {
    const id = hooks.get('success')!;
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const cases: Array<[string, string, RegExp]> = [
      ['bucket=week', 'bucket', /week/],
      ['from=yesterday', 'from', /ISO 8601.*"yesterday"/],
      ['to=2026-13-01T00:00:00Z', 'to', /ISO 8601/],
      [`to=${iso(now + 3_600_000)}`, 'to', /future/],
      [`from=${iso(now - 60_000)}&to=${iso(now - 120_000)}`, 'from', /before to/],
      [`bucket=minute&from=${iso(now - 25 * 3_600_000)}`, 'from', /24 hours/],
      [`bucket=hour&from=${iso(now - 31 * 86_400_000)}`, 'from', /30 days/],
      [`bucket=day&from=${iso(now - 91 * 86_400_000)}`, 'from', /90 days/],
    ];
    const before = await app.fingerprint();
    for (const [query, field, words] of cases) {
      const res = await app.request('GET', `/api/webhooks/${id}/stats?${query}`, { token: owner });
      assert.equal(res.status, 422, `${query}: ${res.text}`);
      const said = (res.body.errors?.[field] ?? []).join(' ');
      assert.match(said, words, `${query}: ${res.text}`);
    }
    assert.deepEqual(await app.fingerprint(), before);
  });

  it('answers an empty window with every bucket at zero', async () => {
    const quiet = await createHook('quiet', await receiver(() => ({ status: 200 })));
    const res = await app.request('GET', `/api/webhooks/${quiet}/stats?bucket=hour`, { token: owner });
    assert.equal(res.status, 200, res.text);
    const stats = res.body.data;
    const hours = (Date.parse(stats.to) - Date.parse(stats.from)) / 3_600_000;
    assert.ok(hours === 24 || hours === 25, String(hours));
    assert.equal(stats.points.length, hours);
    assert.ok(
      stats.points.every((p: { attempts: number; success_rate: null }) => p.attempts === 0 && p.success_rate === null),
    );
    assert.deepEqual(
      { attempts: stats.totals.attempts, rate: stats.totals.success_rate, p50: stats.totals.p50_ms },
      { attempts: 0, rate: null, p50: null },
    );
  });
});

describe('endpoint health: buckets in the company’s zone', () => {
  // A clock of its own: 3 November 2026, two days after New York's clocks went back an hour (1 November, 02:00).
  const NOW = new Date('2026-11-03T12:00:00Z');
  let zoned: TestApp;
  let token: string;
  let webhookId: number;
  let companyId: number;

  before(async () => {
    zoned = await startTestApp({}, { clock: () => NOW });
    token = await zoned.login('owner@acme.test');
    const res = await zoned.request('POST', '/api/webhooks', {
      token,
      body: { title: 'zoned', url: 'https://example.com/hook', events: ['agent.created'] },
    });
    webhookId = res.body.data.id;
    [{ companyId }] = await zoned.sql<{ companyId: number }>(
      `SELECT company_id AS "companyId" FROM users WHERE email = 'owner@acme.test'`,
    );
  });
  after(() => zoned.close());

  /** Quarter-hour rows as the engine keeps them: `success` attempts at each UTC instant. */
  const kept = (rows: Array<[string, number]>) =>
    zoned.sql(
      `INSERT INTO webhook_stats (webhook_id, span, bucket, company_id, success, lt_50)
       SELECT $1, 900, b.at::timestamptz, $2, b.n, b.n FROM json_to_recordset($3::json) AS b(at text, n int)`,
      [webhookId, companyId, JSON.stringify(rows.map(([at, n]) => ({ at, n })))],
    );
  const zone = (timeZone: string) =>
    zoned.sql('UPDATE companies SET time_zone = $1 WHERE id = $2', [timeZone, companyId]);
  const days = async (from: string) => {
    const res = await zoned.request('GET', `/api/webhooks/${webhookId}/stats?bucket=day&from=${from}`, { token });
    assert.equal(res.status, 200, res.text);
    return res.body.data as { from: string; points: Array<{ at: string; attempts: number }> };
  };

  it('splits days at the zone’s midnight, a day of 25 hours when the clocks go back', async () => {
    await zone('America/New_York');
    await kept([
      ['2026-11-01T03:45:00Z', 1], // 31 October, 23:45 EDT
      ['2026-11-01T04:00:00Z', 2], // 1 November, 00:00 EDT
      ['2026-11-01T05:30:00Z', 4], // 01:30 EDT, the first time
      ['2026-11-01T06:30:00Z', 8], // 01:30 EST, the second time
      ['2026-11-02T04:45:00Z', 16], // 1 November, 23:45 EST: still the first
      ['2026-11-02T05:00:00Z', 32], // 2 November, 00:00 EST
    ]);
    const stats = await days('2026-10-31T12:00:00Z');
    assert.deepEqual(
      stats.points.map((p) => [p.at, p.attempts]),
      [
        ['2026-10-31T04:00:00.000Z', 1],
        ['2026-11-01T04:00:00.000Z', 2 + 4 + 8 + 16],
        ['2026-11-02T05:00:00.000Z', 32],
        ['2026-11-03T05:00:00.000Z', 0],
      ],
    );
    // Hours of the day the clocks went back: 25 of them, the repeated 01:00 twice.
    const res = await zoned.request(
      'GET',
      `/api/webhooks/${webhookId}/stats?bucket=hour&from=2026-11-01T04:00:00Z&to=2026-11-02T05:00:00Z`,
      { token },
    );
    assert.equal(res.status, 200, res.text);
    const hours = res.body.data.points as Array<{ at: string; attempts: number }>;
    assert.equal(hours.length, 25);
    assert.deepEqual(
      hours.filter((h) => h.attempts > 0).map((h) => [h.at, h.attempts]),
      [
        ['2026-11-01T04:00:00.000Z', 2],
        ['2026-11-01T05:00:00.000Z', 4],
        ['2026-11-01T06:00:00.000Z', 8],
        ['2026-11-02T04:00:00.000Z', 16],
      ],
    );
  });

  it('splits days at a half-hour zone’s midnight', async () => {
    await zoned.sql('DELETE FROM webhook_stats WHERE webhook_id = $1', [webhookId]);
    await zone('Asia/Kolkata');
    await kept([
      ['2026-11-01T18:15:00Z', 1], // 1 November, 23:45 IST
      ['2026-11-01T18:30:00Z', 2], // 2 November, 00:00 IST
    ]);
    const stats = await days('2026-11-01T00:00:00Z');
    assert.deepEqual(
      stats.points.filter((p) => p.attempts > 0).map((p) => [p.at, p.attempts]),
      [
        ['2026-10-31T18:30:00.000Z', 1],
        ['2026-11-01T18:30:00.000Z', 2],
      ],
    );
  });
});
