import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually, Receiver } from './helpers/receiver.js';
import { apiWithWorkers } from './helpers/worker.js';

// Fairness between tenants, on two real worker processes: one company's
// hanging endpoints hold only their own slots, and another company's fast
// endpoint is served while they hang. The endpoints' concurrency adapts: the
// hanging ones shrink after their timeouts, the fast one grows.

// The timeout is long (15 s) so that, even on a loaded machine, Gamma's deliveries arrive before any of
// Acme's hanging attempts could have timed out: what is shown is that they never wait for those timeouts.
const fixture = apiWithWorkers({ WEBHOOK_TIMEOUT: '15s', WEBHOOK_RETRY_DELAYS: '60s,60s,60s,60s' });
const HANGING = 30;

describe('a noisy neighbour', () => {
  it("cannot delay another company's deliveries, and its endpoints shrink while the fast one grows", async () => {
    const hanging = await new Receiver().start();
    hanging.answer = () => ({ hang: true });
    const fast = await new Receiver().start();
    await fixture.startWorker();
    await fixture.startWorker();
    try {
      const { app, owner } = fixture;
      const noisy: number[] = [];
      for (let i = 0; i < HANGING; i++) {
        const res = await app.request('POST', '/api/webhooks', {
          token: owner,
          body: { title: `Hangs ${i}`, url: `${hanging.url}/${i}`, events: ['agent.created'] },
        });
        assert.equal(res.status, 201, res.text);
        noisy.push(res.body.data.id);
      }
      const gamma = await app.login('owner@gamma.test');
      const hook = await app.request('POST', '/api/webhooks', {
        token: gamma,
        body: { title: 'Fast', url: fast.url, events: ['agent.created'] },
      });
      assert.equal(hook.status, 201, hook.text);
      // Acme's 8 events make 240 deliveries; every hanging endpoint fills its 4 slots.
      for (let i = 0; i < 8; i++)
        assert.equal(
          (await app.request('POST', '/api/agents', { token: owner, body: { name: `Noisy ${i}` } })).status,
          201,
        );
      await hanging.waitFor(HANGING * 4, 20_000);
      // Gamma's forty events become due together (its endpoint paused while they are made, as a 429's
      // Retry-After would, however slowly a loaded machine commits them), so its endpoint works at its
      // limit and, answering fast, grows.
      await app.sql("UPDATE webhooks SET paused_until = now() + interval '1 hour' WHERE id = $1", [hook.body.data.id]);
      const quiet = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          app.request('POST', '/api/agents', { token: gamma, body: { name: `Quiet ${i}` } }),
        ),
      );
      assert.deepEqual([...new Set(quiet.map((r) => r.status))], [201]);
      assert.equal(fast.received.length, 0, 'nothing goes to a paused endpoint');
      await app.sql('UPDATE webhooks SET paused_until = NULL WHERE id = $1', [hook.body.data.id]);
      await fast.waitFor(40, 20_000);
      // Gamma's forty arrived while every attempt of Acme's was still hanging: none of them waited for a timeout.
      const [{ finished, open }] = await app.sql(
        `SELECT count(*) FILTER (WHERE a.finished_at IS NOT NULL)::int AS finished, count(*) FILTER (WHERE a.finished_at IS NULL)::int AS open
         FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = ANY($1)`,
        [noisy],
      );
      assert.equal(finished, 0, 'no hanging attempt had timed out yet');
      assert.equal(open, HANGING * 4, 'each hanging endpoint held its own four slots, no more');
      // After the timeouts, the hanging endpoints are down to half (or less); the fast one has grown.
      const shrunk = await eventually(
        async () => {
          const rows = await app.sql<{ concurrency: number | null }>(
            'SELECT concurrency FROM webhooks WHERE id = ANY($1)',
            [noisy],
          );
          return rows.every((r) => r.concurrency !== null && r.concurrency <= 2) ? rows : undefined;
        },
        45_000,
        'the hanging endpoints to shrink',
      );
      assert.equal(shrunk.length, HANGING);
      const [{ concurrency }] = await app.sql('SELECT concurrency FROM webhooks WHERE id = $1', [hook.body.data.id]);
      assert.ok(concurrency > 4, `the fast endpoint grew past its starting 4, to ${concurrency}`);
      // The API shows each endpoint's current concurrency.
      const shown = await app.request('GET', `/api/webhooks/${noisy[0]}`, { token: owner });
      assert.ok(shown.body.data.concurrency <= 2, shown.text);
    } finally {
      await hanging.close();
      await fast.close();
    }
  });
});
