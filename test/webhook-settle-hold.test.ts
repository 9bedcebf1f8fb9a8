import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Receiver, sleep } from './helpers/receiver.js';
import { apiWithWorkers, kill, startWorker } from './helpers/worker.js';

// A worker records a success with the results of its other attempts still
// being sent, when they come within WEBHOOK_SETTLE_HOLD_MS
// (docs/adr/0101-settles-held-for-their-claim.md): one statement, so one
// transaction, whose time every attempt it records carries as finished_at.
// A real worker process, deliveries written through the API while no worker
// runs (so one claim takes them all), a receiver on loopback answering them
// a few milliseconds apart.

const HOLD_MS = 150;
const fixture = apiWithWorkers({ WEBHOOK_ENDPOINT_CONCURRENCY: '8', WEBHOOK_SETTLE_HOLD_MS: String(HOLD_MS) });

/** `count` agents created through the API (a delivery each), delivered by a worker started after with `env`. */
async function deliveredBy(
  receiver: Receiver,
  label: string,
  count: number,
  env: Record<string, string> = {},
): Promise<Array<{ status: string; finished_at: Date }>> {
  for (let i = 0; i < count; i++) {
    const res = await fixture.app.request('POST', '/api/agents', {
      token: fixture.owner,
      body: { name: `${label} ${i}` },
    });
    assert.equal(res.status, 201, res.text);
  }
  const from = receiver.received.length;
  const worker = Object.keys(env).length > 0 ? await startWorker(fixture.app, env) : await fixture.startWorker();
  try {
    await receiver.waitFor(from + count, 20_000);
    // Every result recorded: each delivery succeeded, each attempt finished.
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(25)) {
      const rows = await attemptsOf(label);
      if (rows.length === count && rows.every((r) => r.status === 'succeeded' && r.finished_at !== null)) return rows;
    }
    throw new Error(`${label}: results not recorded: ${JSON.stringify(await attemptsOf(label))}`);
  } finally {
    await kill(worker);
  }
}

const attemptsOf = (label: string) =>
  fixture.app.sql<{ status: string; finished_at: Date }>(
    `SELECT d.status, a.finished_at FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
     WHERE d.payload LIKE $1 ORDER BY a.attempted_at, d.id`,
    [`%"${label} %`],
  );

/** A receiver with the only active webhook pointing at it, for `run`; closed after. */
async function withHook(title: string, run: (receiver: Receiver) => Promise<void>): Promise<void> {
  const receiver = await new Receiver().start();
  try {
    await fixture.app.sql('UPDATE webhooks SET active = false');
    await fixture.hookFor(receiver, title);
    await run(receiver);
  } finally {
    await receiver.close();
  }
}

const distinct = (rows: Array<{ finished_at: Date }>) => new Set(rows.map((r) => r.finished_at.getTime())).size;

describe('successes held for the results on their way', () => {
  /** The i-th request answered 10 ms after the one before it: each answer comes in a turn of its own. */
  const apart = (_request: unknown, index: number) => ({ status: 200, body: 'ok', delayMs: 1 + 10 * (index % 5) });
  const when = (rows: Array<{ finished_at: Date }>) => `finished at ${rows.map((r) => r.finished_at.toISOString())}`;

  it('attempts of one claim answered a few milliseconds apart are recorded by one statement', () =>
    withHook('Held', async (receiver) => {
      receiver.answer = apart;
      const rows = await deliveredBy(receiver, 'Together', 5);
      assert.equal(distinct(rows), 1, when(rows));
    }));

  it('with the hold off, the same answers are recorded as they come', () =>
    withHook('Unheld', async (receiver) => {
      receiver.answer = apart;
      const off = { WEBHOOK_ENDPOINT_CONCURRENCY: '8', WEBHOOK_SETTLE_HOLD_MS: '0' };
      const rows = await deliveredBy(receiver, 'Apart', 5, off);
      // Held, they are one statement; unheld, more than one even when a busy machine lets a tick take several.
      assert.ok(distinct(rows) >= 2, when(rows));
    }));

  it('a slow answer holds the others no longer than the hold', () =>
    withHook('Slow one', async (receiver) => {
      const slowMs = HOLD_MS + 1500;
      receiver.answer = (_request, index) => ({ status: 200, body: 'ok', delayMs: index % 4 === 3 ? slowMs : 1 });
      const rows = await deliveredBy(receiver, 'Slow', 4);
      const times = rows.map((r) => r.finished_at.getTime()).sort((a, b) => a - b);
      // The three fast ones together, the slow one on its own, well after them.
      assert.equal(new Set(times.slice(0, 3)).size, 1, when(rows));
      assert.ok(times[3] - times[0] > slowMs - HOLD_MS - 200, when(rows));
    }));
});
