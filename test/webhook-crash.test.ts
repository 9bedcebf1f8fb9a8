import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually, Receiver } from './helpers/receiver.js';
import { apiWithWorkers, kill } from './helpers/worker.js';
import { assertInFlightCounted } from './helpers/leases.js';

// Crash safety shown, not claimed: real worker processes (the service binary
// with PROCESS_ROLE=worker) are killed with SIGKILL at the worst moments and
// restarted; the delivery rows say what happened and the receiver what
// arrived. The API runs in this process (PROCESS_ROLE=api: it schedules
// jobs but never runs them).

// The timeout is generous for a loaded machine (an attempt that a busy CI host answers slowly must not time out
// and be retried, which would read as a lost result); the lease is twice it and a second.
const WEBHOOK_ENV = { WEBHOOK_RETRY_DELAYS: '1500ms,300ms,300ms,300ms', WEBHOOK_TIMEOUT: '3s' };
const fixture = apiWithWorkers(WEBHOOK_ENV);

const attemptsOf = (deliveryId: string) =>
  fixture.app.sql<{
    number: number;
    status_code: number | null;
    error: string | null;
    finished: boolean;
    attempted_at: Date;
  }>(
    'SELECT number, status_code, error, finished_at IS NOT NULL AS finished, attempted_at FROM webhook_attempts WHERE delivery_id = $1 ORDER BY number',
    [deliveryId],
  );
const statusOf = async (deliveryId: string) =>
  (await fixture.app.sql('SELECT status FROM webhook_deliveries WHERE id = $1', [deliveryId]))[0]?.status;

describe('a worker killed with SIGKILL', () => {
  it('while an attempt is in flight: after a restart the attempt is closed as failed and retried, no number missing', async () => {
    const receiver = await new Receiver().start();
    receiver.answer = (_r, i) => (i === 0 ? { hang: true } : { status: 200 });
    try {
      await fixture.hookFor(receiver, 'Crash');
      let worker = await fixture.startWorker();
      // A worker serves its probes and metrics, and no API.
      assert.deepEqual(await (await fetch(`${worker.url}/readyz`)).json(), {
        status: 'ready',
        checks: { database: 'ok', jobs: 'ok' },
      });
      assert.match(await (await fetch(`${worker.url}/metrics`)).text(), /webhook_attempts_total/);
      assert.equal((await fetch(`${worker.url}/api/roles`)).status, 404);
      assert.equal((await fetch(`${worker.url}/graphql`, { method: 'POST' })).status, 404);
      await fixture.app.graphql('mutation { createAgent(name: "In flight") { id } }', {}, fixture.owner);
      const [first] = await receiver.waitFor(1, 15_000);
      const deliveryId = String(first.headers['x-webhook-id']);
      await assertInFlightCounted(fixture.app);
      await kill(worker);
      const open = await attemptsOf(deliveryId);
      assert.deepEqual(
        open.map((a) => [a.number, a.finished]),
        [[1, false]],
        'the attempt is visible, not finished',
      );
      worker = await fixture.startWorker();
      await eventually(
        async () => ((await statusOf(deliveryId)) === 'succeeded' ? true : undefined),
        30_000,
        'the delivery to complete',
      );
      const attempts = await attemptsOf(deliveryId);
      assert.deepEqual(
        attempts.map((a) => a.number),
        [1, 2],
        'no attempt number missing',
      );
      assert.equal(attempts[0].error, 'The attempt did not finish: its worker stopped.');
      assert.equal(attempts[1].status_code, 200);
      // The receiver saw attempt 1 (it hung) and attempt 2: the one duplicate at-least-once allows, same webhook-id.
      assert.deepEqual(
        receiver.received.map((r) => [r.headers['x-webhook-id'], r.headers['x-webhook-attempt']]),
        [
          [deliveryId, '1'],
          [deliveryId, '2'],
        ],
      );
      await assertInFlightCounted(fixture.app);
      await kill(worker);
    } finally {
      await receiver.close();
    }
  });

  it('while a retry is scheduled: after a restart the retry goes out on time and nothing is sent twice', async () => {
    const receiver = await new Receiver().start();
    receiver.answer = (_r, i) => ({ status: i === 0 ? 500 : 200 });
    try {
      await fixture.hookFor(receiver, 'Crash');
      let worker = await fixture.startWorker();
      await fixture.app.graphql('mutation { createAgent(name: "Retry scheduled") { id } }', {}, fixture.owner);
      const [first] = await receiver.waitFor(1, 15_000);
      const deliveryId = String(first.headers['x-webhook-id']);
      const due = await eventually(
        async () => {
          const [row] = await fixture.app.sql(
            'SELECT next_attempt_at FROM webhook_deliveries WHERE id = $1 AND next_attempt_at IS NOT NULL',
            [deliveryId],
          );
          return row?.next_attempt_at as Date | undefined;
        },
        10_000,
        'the retry to be scheduled',
      );
      await assertInFlightCounted(fixture.app);
      await kill(worker);
      worker = await fixture.startWorker();
      await eventually(
        async () => ((await statusOf(deliveryId)) === 'succeeded' ? true : undefined),
        30_000,
        'the retry',
      );
      const attempts = await attemptsOf(deliveryId);
      assert.deepEqual(
        attempts.map((a) => [a.number, a.status_code]),
        [
          [1, 500],
          [2, 200],
        ],
        JSON.stringify(attempts),
      );
      assert.ok(new Date(attempts[1].attempted_at).getTime() >= new Date(due).getTime(), 'not early');
      assert.equal(receiver.received.length, 2);
      await assertInFlightCounted(fixture.app);
      await kill(worker);
    } finally {
      await receiver.close();
    }
  });

  it('while the last attempt is in flight: nothing is told yet; after a restart it is closed as failed and delivery.exhausted is told once', async () => {
    const receiver = await new Receiver().start();
    receiver.answer = (r) => (r.headers['x-webhook-attempt'] === '5' ? { hang: true } : { status: 500 });
    const watcher = await new Receiver().start();
    const exhaustedAbout = async (webhookId: number) =>
      (
        await fixture.app.sql<{ n: number }>(
          "SELECT count(*)::int AS n FROM events WHERE type = 'delivery.exhausted' AND $1 = ANY(subjects)",
          [`webhook:${webhookId}`],
        )
      )[0].n;
    try {
      const hookId = await fixture.hookFor(receiver, 'Last attempt');
      const watch = await fixture.app.request('POST', '/api/webhooks', {
        token: fixture.owner,
        body: { title: 'Watcher', url: watcher.url, events: ['delivery.exhausted'] },
      });
      assert.equal(watch.status, 201, watch.text);
      let worker = await fixture.startWorker();
      await fixture.app.graphql('mutation { createAgent(name: "Last attempt") { id } }', {}, fixture.owner);
      const [fifth] = await receiver.waitFor(1, 30_000, (r) => r.headers['x-webhook-attempt'] === '5');
      const deliveryId = String(fifth.headers['x-webhook-id']);
      await assertInFlightCounted(fixture.app);
      await kill(worker);
      assert.equal(await statusOf(deliveryId), 'pending', 'the last attempt is still open');
      assert.equal(await exhaustedAbout(hookId), 0, 'nothing is told while it is open');
      worker = await fixture.startWorker();
      await eventually(
        async () => ((await statusOf(deliveryId)) === 'failed' ? true : undefined),
        60_000,
        'the last attempt closed',
      ).catch(async (error) => {
        const [row] = await fixture.app.sql(
          'SELECT status, attempt_count, final_attempt, lease_token, in_flight_until, now() AS now FROM webhook_deliveries WHERE id = $1',
          [deliveryId],
        );
        throw new Error(
          `${(error as Error).message}: ${JSON.stringify(row)}; the worker said: ${worker.output().slice(-3000)}`,
        );
      });
      const [told] = await watcher.waitFor(1, 30_000, (r) => JSON.parse(r.body).data.webhook_id === String(hookId));
      const { data } = JSON.parse(told.body);
      assert.deepEqual(
        [data.delivery_id, data.attempts, data.last_status_code, data.last_error],
        [deliveryId, 5, null, 'The attempt did not finish: its worker stopped.'],
      );
      assert.deepEqual(
        (await attemptsOf(deliveryId)).map((a) => a.number),
        [1, 2, 3, 4, 5],
      );
      assert.equal(await exhaustedAbout(hookId), 1, 'told once');
      await assertInFlightCounted(fixture.app);
      await kill(worker);
    } finally {
      await receiver.close();
      await watcher.close();
    }
  });
});
