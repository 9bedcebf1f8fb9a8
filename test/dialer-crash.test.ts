import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually } from './helpers/receiver.js';
import { kill, startWorker } from './helpers/worker.js';

// The dialer's crash safety shown, not claimed: two worker processes (the service binary, PROCESS_ROLE=worker) on
// the API's database, one leading the dialer; the leader is killed with SIGKILL while it dials a campaign, with calls
// claimed, being placed and on the line. The other takes the lead, finds the claims the dead one left (asking the
// provider whether each call was placed) and finishes the campaign. The simulator (in this process, with the API)
// says what was dialed: every lead exactly once, none lost.

let app: TestApp;
let owner: string;
const workers: ChildProcess[] = [];

const WORKER_ENV = {
  DIALER_TICK: '50ms',
  DIALER_CALLS_PER_SECOND: '10',
  DIALER_LEASE: '3s',
  TELCO_TIMEOUT: '1s',
  LOG_LEVEL: 'info',
};

before(async () => {
  app = await startTestApp({ PROCESS_ROLE: 'api', TELCO_SIM_TIME_SCALE: '0.02', ...WORKER_ENV });
  owner = await app.login('owner@acme.test');
});
after(async () => {
  for (const worker of workers) if (worker.exitCode === null && worker.signalCode === null) await kill(worker);
  await app?.close();
});

async function worker() {
  // The provider reports the calls' progress to the API: the workers serve no /api.
  const started = await startWorker(app, { ...WORKER_ENV, PUBLIC_URL: app.url });
  workers.push(started);
  return started;
}

describe('the dialer, its leader killed with SIGKILL mid-campaign', () => {
  it('dials every lead exactly once: the other worker takes the lead and settles what the dead one left', async () => {
    const sim = app.running.simulator!.outbound;
    const numbers = Array.from({ length: 40 }, (_, i) => `+1415555${String(8000 + i * 10 + 1)}`);
    const created = await app.request('POST', '/api/campaigns', {
      token: owner,
      body: { name: 'Crash', dialing: { concurrency: 6, hours_start: '00:00', hours_end: '24:00' } },
    });
    const id = created.body.data.id;
    await app.request('POST', `/api/campaigns/${id}/leads`, {
      token: owner,
      body: { leads: numbers.map((phone_number) => ({ phone_number })) },
    });
    const [a, b] = [await worker(), await worker()];
    await app.request('POST', `/api/campaigns/${id}/start`, { token: owner });
    const leader = await eventually(
      async () => [a, b].find((w) => w.output().includes('dialer leading')),
      15_000,
      'a worker to lead the dialer',
    );
    const other = leader === a ? b : a;
    // Mid-campaign: calls claimed, placed and on the line.
    await eventually(
      async () => (sim.calls.filter((c) => numbers.includes(c.to)).length >= 12 ? true : undefined),
      20_000,
      'a dozen calls',
    );
    await kill(leader);
    const [{ live }] = await app.sql(
      `SELECT count(*)::int AS live FROM lead_attempts WHERE campaign_id = $1 AND state IN ('dialing', 'live')`,
      [id],
    );
    assert.ok(live > 0, 'the leader died with attempts under way');
    await eventually(
      async () => (other.output().includes('dialer leading') ? true : undefined),
      15_000,
      'a new leader',
    );
    await eventually(
      async () => {
        const [c] = await app.sql('SELECT status FROM campaigns WHERE id = $1', [id]);
        return c.status === 'completed' ? true : undefined;
      },
      60_000,
      'the campaign to complete',
    );
    const perNumber = new Map<string, number>();
    for (const call of sim.calls)
      if (numbers.includes(call.to)) perNumber.set(call.to, (perNumber.get(call.to) ?? 0) + 1);
    assert.deepEqual(
      numbers.filter((n) => perNumber.get(n) !== 1),
      [],
      'each number dialed once at the provider',
    );
    const attempts = await app.sql(
      `SELECT l.state, count(a.id)::int AS attempts, min(a.outcome) AS outcome FROM leads l
       LEFT JOIN lead_attempts a ON a.lead_id = l.id WHERE l.campaign_id = $1 GROUP BY l.id, l.state`,
      [id],
    );
    assert.equal(attempts.length, 40);
    assert.deepEqual(
      attempts.filter((r) => r.state !== 'answered' || r.attempts !== 1 || r.outcome !== 'answered'),
      [],
      'every lead answered, by one attempt',
    );
    const [events] = await app.sql(
      "SELECT count(*)::int AS n FROM events WHERE type = 'campaign.completed' AND data ->> 'campaign_id' = $1",
      [String(id)],
    );
    assert.equal(events.n, 1, 'campaign.completed once');
  });
});
