import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newDeliveryId, payloadText } from '../src/webhooks/config/payload.js';
import { eventually, Receiver, sleep } from './helpers/receiver.js';
import { apiWithWorkers, kill } from './helpers/worker.js';

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

describe('two workers on one job store', () => {
  it('send each of 1,000 deliveries exactly once', async () => {
    const receiver = await new Receiver().start();
    try {
      const webhookId = await fixture.hookFor(receiver, 'Workers');
      const [{ id: company }] = await fixture.app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
      // The outbox rows as a transaction would have written them; the workers' reconcilers find them due.
      const ids: string[] = [];
      const now = new Date();
      for (let batch = 0; batch < 10; batch++) {
        const values: unknown[] = [];
        const rows: string[] = [];
        for (let i = 0; i < 100; i++) {
          const id = newDeliveryId();
          ids.push(id);
          const payload = payloadText({
            event: 'agent.created',
            occurredAt: now,
            webhookId,
            data: { agent_id: String(batch * 100 + i), name: 'Bulk', active: true, online: false },
            contact: null,
          });
          const base = values.length;
          rows.push(
            `($${base + 1}, $${base + 2}, $${base + 3}, 'agent.created', 'pending', $${base + 4}, 0, 5, $${base + 5}, 'scheduled', $${base + 6})`,
          );
          values.push(id, webhookId, company, payload, now, now);
        }
        await fixture.app.sql(
          `INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, attempt_count, ` +
            `final_attempt, next_attempt_at, next_trigger, created_at) VALUES ${rows.join(', ')}`,
          values,
        );
      }
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
});
