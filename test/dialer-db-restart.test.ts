import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { loginThrough } from './helpers/app.js';
import { embeddedPostgresSkip } from './helpers/processes.js';
import { type OwnPostgres, serviceOnOwnPostgres } from './helpers/own-postgres.js';
import { eventually, sleep } from './helpers/receiver.js';

// The dialer through a PostgreSQL restart (docs/dialer.md, "Never twice, never lost"): a campaign of 60 leads dials
// through the simulator, and the service's PostgreSQL (embedded, on a fixed port) is stopped for two seconds while
// calls are being claimed, placed and ended. The simulator gives up the status callbacks it could not deliver
// meanwhile, as a provider does; the dialer asks the provider about calls it has not heard of for a lease. The
// campaign completes: every lead dialed exactly once at the provider, answered by one attempt, nothing left on the
// line, campaign.completed once.

const skip = embeddedPostgresSkip();

describe('a PostgreSQL restart while the dialer dials', { skip }, () => {
  let own: OwnPostgres | undefined;
  let reader: pg.Client | undefined;
  after(async () => {
    await reader?.end().catch(() => undefined);
    await own?.close();
  });

  it('dials every lead exactly once and completes the campaign once', async () => {
    own = await serviceOnOwnPostgres('dialer-restart', {
      TELCO_SIM_TIME_SCALE: '0.03',
      DIALER_TICK: '50ms',
      DIALER_CALLS_PER_SECOND: '10',
      DIALER_LEASE: '3s',
      TELCO_TIMEOUT: '1s',
    });
    const { running, url, databaseUrl } = own;
    const sim = running.simulator!.outbound;
    const api = async (method: string, route: string, token: string | null, body?: unknown) => {
      const response = await fetch(`${url}${route}`, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    };
    const token = await loginThrough(url);
    const numbers = Array.from({ length: 60 }, (_, i) => `+1415555${String(6000 + i * 10 + 1)}`);
    const created = await api('POST', '/api/campaigns', token, {
      name: 'Through a restart',
      dialing: { concurrency: 8, hours_start: '00:00', hours_end: '24:00' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data.id as number;
    const added = await api('POST', `/api/campaigns/${id}/leads`, token, {
      leads: numbers.map((phone_number) => ({ phone_number })),
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.equal((await api('POST', `/api/campaigns/${id}/start`, token)).status, 200);
    const dialed = () => sim.calls.filter((c) => numbers.includes(c.to));
    // Mid-campaign: calls claimed, placed, on the line and ending.
    await eventually(async () => (dialed().length >= 15 ? true : undefined), 30_000, '15 calls');
    await own.stopDatabase();
    await sleep(2000);
    await own.startDatabase();
    reader = new pg.Client({ connectionString: databaseUrl });
    await reader.connect();
    const status = async () =>
      (await reader!.query('SELECT status FROM campaigns WHERE id = $1', [id])).rows[0].status as string;
    await eventually(async () => ((await status()) === 'completed' ? true : undefined), 90_000, 'the campaign');
    const perNumber = new Map<string, number>();
    for (const call of dialed()) perNumber.set(call.to, (perNumber.get(call.to) ?? 0) + 1);
    assert.deepEqual(
      numbers.filter((n) => perNumber.get(n) !== 1),
      [],
      'each number dialed once at the provider',
    );
    const { rows } = await reader.query(
      `SELECT l.state, count(a.id)::int AS attempts, min(a.outcome) AS outcome, min(a.state) AS attempt_state
       FROM leads l LEFT JOIN lead_attempts a ON a.lead_id = l.id WHERE l.campaign_id = $1 GROUP BY l.id, l.state`,
      [id],
    );
    assert.equal(rows.length, 60);
    assert.deepEqual(
      rows.filter(
        (r) => r.state !== 'answered' || r.attempts !== 1 || r.outcome !== 'answered' || r.attempt_state !== 'ended',
      ),
      [],
      'every lead answered, by one attempt, ended',
    );
    const { rows: events } = await reader.query(
      "SELECT count(*)::int AS n FROM events WHERE type = 'campaign.completed' AND data ->> 'campaign_id' = $1",
      [String(id)],
    );
    assert.equal(events[0].n, 1, 'campaign.completed once');
    // Each call's end reached its record too: every campaign call of the dashboard has ended.
    const { rows: calls } = await reader.query(
      `SELECT count(*)::int AS n FROM calls k JOIN lead_attempts a ON a.call_sid = k.provider_call_id
       WHERE a.campaign_id = $1 AND k.status = 'completed'`,
      [id],
    );
    assert.equal(calls[0].n, 60);
  });
});
