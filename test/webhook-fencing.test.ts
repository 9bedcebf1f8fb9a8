import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { eventually, Receiver, sleep } from './helpers/receiver.js';
import { apiWithWorkers, kill } from './helpers/worker.js';
import { assertInFlightCounted } from './helpers/leases.js';

// Fencing, shown on real worker processes: a worker paused (SIGSTOP) past its
// lease, then resumed (SIGCONT), neither sends nor records an attempt that
// was closed and claimed again meanwhile. WEBHOOK_TIMEOUT 1 s makes the lease
// 3 s (twice the timeout and a second).

const fixture = apiWithWorkers({ WEBHOOK_TIMEOUT: '1s', WEBHOOK_RETRY_DELAYS: '300ms,300ms,300ms,300ms' });
const LEASE_MS = 3000;

async function deliveryOf(webhookId: number) {
  return eventually(
    async () =>
      (
        await fixture.app.sql<{ id: string }>('SELECT id FROM webhook_deliveries WHERE webhook_id = $1', [webhookId])
      )[0],
    10_000,
    'the delivery row',
  );
}

async function attemptsOf(id: string) {
  return fixture.app.sql<{ number: number; status_code: number | null; error: string | null }>(
    'SELECT number, status_code, error FROM webhook_attempts WHERE delivery_id = $1 ORDER BY number',
    [id],
  );
}

async function createAgent(name: string) {
  const res = await fixture.app.request('POST', '/api/agents', { token: fixture.owner, body: { name } });
  assert.equal(res.status, 201, res.text);
}

describe('a worker paused past its lease', () => {
  it('records nothing over the attempt another worker closed and sent again', async () => {
    const receiver = await new Receiver().start();
    const a = await fixture.startWorker();
    try {
      // A's request arrives: A is stopped before it can read the answer (already written to its socket).
      receiver.answer = (_request, index) => {
        if (index === 0) a.kill('SIGSTOP');
        return { status: 200, body: 'ok' };
      };
      const webhookId = await fixture.hookFor(receiver, 'Fenced after send');
      await createAgent('Paused after send');
      await receiver.waitFor(1);
      const { id } = await deliveryOf(webhookId);
      await sleep(LEASE_MS + 200);
      // B finds the lease run out, closes the attempt as failed, and sends it again on schedule.
      const b = await fixture.startWorker();
      await eventually(
        async () =>
          (await fixture.app.sql('SELECT status FROM webhook_deliveries WHERE id = $1', [id]))[0].status === 'succeeded'
            ? true
            : undefined,
        15_000,
        'the retry by the second worker',
      );
      a.kill('SIGCONT');
      await eventually(
        async () => (/result not recorded/.test(a.output()) ? true : undefined),
        10_000,
        "the paused worker's stale result",
      );
      const [delivery] = await fixture.app.sql(
        'SELECT status, attempt_count, last_status_code, lease_token FROM webhook_deliveries WHERE id = $1',
        [id],
      );
      assert.deepEqual(delivery, { status: 'succeeded', attempt_count: 2, last_status_code: 200, lease_token: null });
      const attempts = await attemptsOf(id);
      assert.deepEqual(
        attempts.map((x) => [x.number, x.status_code]),
        [
          [1, null],
          [2, 200],
        ],
      );
      assert.match(attempts[0].error!, /worker stopped/);
      // The lost result is the one documented cause of a duplicate, and it carries the same id.
      assert.equal(receiver.received.length, 2);
      assert.deepEqual(
        receiver.received.map((r) => [r.headers['webhook-id'], r.headers['x-webhook-attempt']]),
        [
          [id, '1'],
          [id, '2'],
        ],
      );
      await assertInFlightCounted(fixture.app);
      await kill(b);
    } finally {
      if (a.exitCode === null) {
        a.kill('SIGCONT');
        await kill(a);
      }
      await receiver.close();
    }
  });

  it('does not send an attempt whose lease ran out before it could', async () => {
    const receiver = await new Receiver().start();
    const a = await fixture.startWorker();
    const blocker = new pg.Client({ connectionString: fixture.app.running.databaseUrl });
    await blocker.connect();
    try {
      const webhookId = await fixture.hookFor(receiver, 'Fenced before send');
      a.kill('SIGSTOP');
      await createAgent('Paused before send');
      const { id } = await deliveryOf(webhookId);
      // The claim skips a delivery row another statement holds, but records the attempt under a unique key: an
      // uncommitted attempt of the same number makes A's claim wait for it; A is stopped there, its claim not yet done.
      await blocker.query('BEGIN');
      await blocker.query(
        "INSERT INTO webhook_attempts (delivery_id, number, trigger, attempted_at) VALUES ($1, 1, 'scheduled', now())",
        [id],
      );
      a.kill('SIGCONT');
      // (pg_locks, not pg_stat_activity: the latter may still show the claim's first statement. pg_locks is the
      // whole server's: only a session on this test's database counts, not another run's waiting somewhere else.)
      await eventually(
        async () => {
          const { rows } = await blocker.query(
            `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid
           WHERE NOT l.granted AND l.pid <> pg_backend_pid() AND s.datname = current_database()`,
          );
          return rows[0].n > 0 ? true : undefined;
        },
        10_000,
        "the worker's claim waiting on the row",
      );
      a.kill('SIGSTOP');
      await blocker.query('ROLLBACK');
      await sleep(LEASE_MS + 200);
      const b = await fixture.startWorker();
      a.kill('SIGCONT');
      await eventually(
        async () => (/lease ran out before it could be/.test(a.output()) ? true : undefined),
        10_000,
        'the paused worker giving the attempt up',
      );
      await eventually(
        async () =>
          (await fixture.app.sql('SELECT status FROM webhook_deliveries WHERE id = $1', [id]))[0].status === 'succeeded'
            ? true
            : undefined,
        15_000,
        'the retry by the second worker',
      );
      const attempts = await attemptsOf(id);
      assert.deepEqual(
        attempts.map((x) => [x.number, x.status_code]),
        [
          [1, null],
          [2, 200],
        ],
      );
      assert.match(attempts[0].error!, /worker stopped/);
      // Only B's attempt reached the receiver.
      await sleep(300);
      assert.deepEqual(
        receiver.received.map((r) => r.headers['x-webhook-attempt']),
        ['2'],
      );
      await assertInFlightCounted(fixture.app);
      await kill(b);
    } finally {
      await blocker.end().catch(() => undefined);
      if (a.exitCode === null) {
        a.kill('SIGCONT');
        await kill(a);
      }
      await receiver.close();
    }
  });
});

describe('a receiver that answers late', () => {
  it('gets the delivery again with the same webhook-id; one that answers in time gets it once', async () => {
    const receiver = await new Receiver().start();
    const worker = await fixture.startWorker();
    // Every third delivery's first attempt is answered after the 1 s timeout.
    const order = new Map<string, number>();
    receiver.answer = (request) => {
      const id = String(request.headers['webhook-id']);
      if (!order.has(id)) order.set(id, order.size);
      const late = order.get(id)! % 3 === 0 && request.headers['x-webhook-attempt'] === '1';
      return late ? { status: 200, delayMs: 1500 } : { status: 200 };
    };
    try {
      const webhookId = await fixture.hookFor(receiver, 'Late answers');
      for (let i = 0; i < 30; i++) await createAgent(`Late ${i}`);
      await eventually(
        async () => {
          const [{ n }] = await fixture.app.sql(
            "SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'",
            [webhookId],
          );
          return n === 30 ? true : undefined;
        },
        30_000,
        'thirty deliveries',
      );
      await sleep(300);
      const copies = new Map<string, string[]>();
      for (const r of receiver.received)
        copies.set(String(r.headers['webhook-id']), [
          ...(copies.get(String(r.headers['webhook-id'])) ?? []),
          String(r.headers['x-webhook-attempt']),
        ]);
      assert.equal(copies.size, 30);
      for (const [id, attempts] of copies) {
        const late = order.get(id)! % 3 === 0;
        assert.deepEqual(attempts, late ? ['1', '2'] : ['1'], `${id} (${late ? 'answered late' : 'answered in time'})`);
        const rows = await attemptsOf(id);
        assert.deepEqual(
          rows.map((x) => x.status_code),
          late ? [null, 200] : [200],
        );
        if (late) assert.match(rows[0].error!, /timed out/);
      }
      await assertInFlightCounted(fixture.app);
      await kill(worker);
    } finally {
      await receiver.close();
    }
  });
});
