import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { Receiver, sleep } from './helpers/receiver.js';
import { apiWithWorkers, kill } from './helpers/worker.js';

// WEBHOOK_STREAM_WINDOW=0 (docs/adr/0109-the-stream-window-a-setting.md): a stream of writes is claimed at every
// commit, not once per window. A real API process, two real workers, and a listener on the pumps' channel counting
// the writers' wake-ups; each worker's own count of claims from its /metrics.

const fixture = apiWithWorkers({ WEBHOOK_ENDPOINT_CONCURRENCY: '8', WEBHOOK_STREAM_WINDOW: '0' });
const WRITES = 40;

async function claims(worker: { url: string }): Promise<number> {
  const text = await (await fetch(`${worker.url}/metrics`)).text();
  return Number(/^webhook_claims_total\{found="yes"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

describe('a stream window of 0', () => {
  it('wakes the pumps at every commit, both answer the wake-ups, every delivery made once', async () => {
    const receiver = await new Receiver().start();
    const listener = new pg.Client({ connectionString: fixture.app.running.databaseUrl });
    await listener.connect();
    const turns: number[] = [];
    listener.on('notification', (message) => {
      if (/^\d+$/.test(message.payload ?? '')) turns.push(Number(message.payload));
    });
    await listener.query('LISTEN webhook_due');
    const pair = [await fixture.startWorker(), await fixture.startWorker()];
    try {
      await fixture.app.sql('UPDATE webhooks SET active = false');
      await fixture.hookFor(receiver, 'Stream');
      // Both workers in each other's list of pumps, so that each answers its share of the wake-ups.
      await sleep(4000);
      const before = await Promise.all(pair.map(claims));
      const heard = turns.length;
      // One write after another, each a few milliseconds after the last: under the default window of 20 ms most of
      // them would share a wake-up and a claim.
      for (let i = 0; i < WRITES; i++) {
        const res = await fixture.app.request('POST', '/api/agents', {
          token: fixture.owner,
          body: { name: `S ${i}` },
        });
        assert.equal(res.status, 201, res.text);
      }
      await receiver.waitFor(WRITES, 30_000);
      await sleep(300);
      const made = (await Promise.all(pair.map(claims))).map((after, i) => after - before[i]);
      const woken = turns.length - heard;
      assert.ok(woken >= WRITES * 0.8, `${woken} wake-ups for ${WRITES} writes`);
      // A worker still at one claim when the next write commits takes that write in its next claim, so on a loaded
      // machine claims merge (a CI run saw 22 for 40 writes). Pumps that left the wake-ups to the poll, once a second,
      // would make a handful.
      assert.ok(made[0] + made[1] >= WRITES / 4, `claims that found work: ${made.join(' + ')} for ${WRITES} writes`);
      for (const [i, n] of made.entries()) assert.ok(n >= 1, `worker ${i} made no claim: ${made.join(', ')}`);
      const [{ n }] = await fixture.app.sql<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id ' +
          "WHERE w.title = 'Stream' AND d.status = 'succeeded' AND d.attempt_count = 1",
      );
      assert.equal(n, WRITES, 'every delivery made once, at its first attempt');
      assert.equal(receiver.received.length, WRITES);
    } finally {
      for (const worker of pair) await kill(worker);
      await listener.end();
      await receiver.close();
    }
  });
});
