import assert from 'node:assert/strict';
import { getPriority } from 'node:os';
import { describe, it } from 'node:test';
import { eventually, Receiver, sleep } from './helpers/receiver.js';
import { queueDeliveries as queue } from './helpers/deliveries.js';
import { apiWithWorkers, kill, startWorker } from './helpers/worker.js';

// Two real worker processes (the service binary with PROCESS_ROLE=worker)
// share one job store and one outbox; the API runs in this process
// (PROCESS_ROLE=api: it schedules jobs but never runs them).

// The endpoint takes 32 at once (4 by default): both workers claim side by side
// for the whole run, the race that exactly-once must survive. The receiver
// answers in time and the timeout is the default, generous for a loaded
// machine: the engine promises at-least-once, with a duplicate only when an
// attempt's result was lost (a timeout, a crash), so here none is allowed.
// (With a 500 ms timeout a loaded machine timed out attempts the receiver had.)
const WEBHOOK_ENV = {
  WEBHOOK_RETRY_DELAYS: '1500ms,300ms,300ms,300ms',
  WEBHOOK_TIMEOUT: '10s',
  WEBHOOK_ENDPOINT_CONCURRENCY: '32',
};
const fixture = apiWithWorkers(WEBHOOK_ENV);

/** `count` outbox rows of agent.created over `hooks` in turn, as a transaction would have written them: the workers' reconcilers find them due. */
const queueDeliveries = (hooks: number[], count: number, name: string) =>
  queue(fixture.app, hooks, count, name).then(() => undefined);

describe('two workers on one job store', () => {
  it('each lowers its scheduling priority to WORKER_NICE, yielding the CPU to the API processes of its host', async () => {
    const worker = await startWorker(fixture.app, { ...WEBHOOK_ENV, WORKER_NICE: '7' });
    try {
      assert.equal(getPriority(worker.pid), 7);
    } finally {
      await kill(worker);
    }
  });

  it('send each of 1,000 deliveries exactly once', async () => {
    const receiver = await new Receiver().start();
    try {
      const webhookId = await fixture.hookFor(receiver, 'Workers');
      await queueDeliveries([webhookId], 1000, 'Bulk');
      const pair = await Promise.all([fixture.startWorker(), fixture.startWorker()]);
      await eventually(
        async () => {
          const [{ n }] = await fixture.app.sql(
            "SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'",
            [webhookId],
          );
          return n === 1000 ? true : undefined;
        },
        120_000,
        '1,000 deliveries',
      );
      await sleep(300);
      const seen = new Map<string, number>();
      for (const r of receiver.received)
        seen.set(String(r.headers['x-webhook-id']), (seen.get(String(r.headers['x-webhook-id'])) ?? 0) + 1);
      assert.equal(seen.size, 1000);
      assert.deepEqual([...new Set(seen.values())], [1], 'every delivery arrived exactly once');
      const [{ attempts }] = await fixture.app.sql(
        'SELECT count(*)::int AS attempts FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = $1',
        [webhookId],
      );
      assert.equal(attempts, 1000);
      for (const worker of pair) await kill(worker);
    } finally {
      await receiver.close();
    }
  });

  it("keeps its connections to an origin open while deliveries flow, however many of the origin's webhooks share them", async () => {
    const receiver = await new Receiver().start();
    try {
      // 20 webhooks of one origin, 32 attempts at once each: far more sockets busy at once than one webhook's maximum.
      const hooks: number[] = [];
      for (let i = 0; i < 20; i++) hooks.push(await fixture.hookFor(receiver, `Origin ${i}`));
      await queueDeliveries(hooks, 2000, 'Kept');
      const worker = await fixture.startWorker();
      await receiver.waitFor(2000, 120_000);
      const { opened, closed } = receiver.connections;
      await kill(worker);
      // A socket freed while the flow goes on is kept for the next attempt, not closed and opened again: no more
      // connections than attempts could be in flight to the origin (20 webhooks at most 64 each), none closed.
      assert.ok(opened > 0 && opened <= 20 * 64, `${opened} connections opened for 2,000 deliveries`);
      assert.ok(closed <= opened / 10, `${closed} of ${opened} connections closed by the worker mid-run`);
    } finally {
      await receiver.close();
    }
  });
});
