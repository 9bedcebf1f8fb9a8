import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { eventually, Receiver, sleep } from './helpers/receiver.js';
import { apiWithWorkers, kill } from './helpers/worker.js';
import { newDeliveryId } from '../src/webhooks/config/payload.js';
import { WAKE_SPACING_MS } from '../src/webhooks/engine/due-channel.js';

// Each wake-up of the delivery pumps is answered by one worker, not by all
// (docs/adr/0073-wake-ups-aimed-at-one-pump.md): two real worker processes,
// events caused through the API one at a time, and each worker's own count of
// claims (webhook_claims_total on its /metrics). A claim that finds nothing is
// a wake-up answered twice; a worker that stops answering (SIGSTOP) drops out of
// the others' list, so its share of wake-ups is taken at once, not at a poll.

const fixture = apiWithWorkers({ WEBHOOK_ENDPOINT_CONCURRENCY: '8' });
const WRITES = 30;
/** Longer than a pump's list of the others is kept (wake-targets.ts: 3 s after a pump last asked). */
const ROSTER_SETTLES_MS = 4000;

type Worker = Awaited<ReturnType<typeof fixture.startWorker>>;

/** A worker's claims so far, from its /metrics. */
async function claims(worker: Worker): Promise<{ yes: number; no: number }> {
  const text = await (await fetch(`${worker.url}/metrics`)).text();
  const count = (found: string) =>
    Number(new RegExp(`^webhook_claims_total\\{found="${found}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { yes: count('yes'), no: count('no') };
}

const minus = (a: { yes: number; no: number }, b: { yes: number; no: number }) => ({
  yes: a.yes - b.yes,
  no: a.no - b.no,
});

/** `count` agents created through the API, one every `gapMs`: each commit is a wake-up of its own. */
async function writesApart(receiver: Receiver, label: string, count: number, gapMs: number): Promise<void> {
  const from = receiver.received.length;
  for (let i = 0; i < count; i++) {
    const res = await fixture.app.request('POST', '/api/agents', {
      token: fixture.owner,
      body: { name: `${label} ${i}` },
    });
    assert.equal(res.status, 201, res.text);
    await sleep(gapMs);
  }
  await receiver.waitFor(from + count, 30_000);
}

/** Two workers started, each in the others' list by the time `run` begins; both killed after, whatever happens. */
async function withTwoWorkers(run: (pair: Worker[]) => Promise<void>): Promise<void> {
  const pair = [await fixture.startWorker(), await fixture.startWorker()];
  try {
    await sleep(ROSTER_SETTLES_MS);
    await run(pair);
  } finally {
    for (const worker of pair) {
      worker.kill('SIGCONT');
      await kill(worker);
    }
  }
}

describe('wake-ups of the delivery pumps, with two workers', () => {
  it('are answered in turns: one claim per wake-up, both workers taking a share', async () => {
    const receiver = await new Receiver().start();
    try {
      await fixture.app.sql('UPDATE webhooks SET active = false');
      await fixture.hookFor(receiver, 'Turns');
      await withTwoWorkers(async (pair) => {
        const before = await Promise.all(pair.map(claims));
        await writesApart(receiver, 'Turn', WRITES, 80);
        await sleep(300);
        const made = (await Promise.all(pair.map(claims))).map((after, i) => minus(after, before[i]));
        const empty = made[0].no + made[1].no;
        // Answered by every pump, each write would cost one empty claim per worker but one.
        assert.ok(empty <= WRITES / 5, `${empty} claims found nothing for ${WRITES} wake-ups: ${JSON.stringify(made)}`);
        for (const [i, worker] of made.entries())
          assert.ok(worker.yes >= WRITES / 4, `worker ${i} made ${worker.yes} of the claims: ${JSON.stringify(made)}`);
        assert.equal(receiver.received.length, WRITES);
      });
    } finally {
      await receiver.close();
    }
  });

  it('come at most one per 20 ms from a process under a stream of writes, numbered in turns, and nothing waits', async () => {
    const receiver = await new Receiver().start();
    const listener = new pg.Client({ connectionString: fixture.app.running.databaseUrl });
    await listener.connect();
    const turns: Array<{ number: number; at: number }> = [];
    listener.on('notification', (message) => {
      if (/^\d+$/.test(message.payload ?? '')) turns.push({ number: Number(message.payload), at: Date.now() });
    });
    await listener.query('LISTEN webhook_due');
    try {
      await fixture.app.sql('UPDATE webhooks SET active = false');
      await fixture.hookFor(receiver, 'Stream');
      await withTwoWorkers(async (pair) => {
        const before = await Promise.all(pair.map(claims));
        const writes = 60;
        let next = 0;
        const started = Date.now();
        // Ten writers at once: commits far closer together than the spacing.
        await Promise.all(
          Array.from({ length: 10 }, async () => {
            while (next < writes) {
              const res = await fixture.app.request('POST', '/api/agents', {
                token: fixture.owner,
                body: { name: `Stream ${next++}` },
              });
              assert.equal(res.status, 201, res.text);
            }
          }),
        );
        const elapsed = Date.now() - started;
        await receiver.waitFor(writes, 30_000);
        await sleep(300);
        const made = (await Promise.all(pair.map(claims))).map((after, i) => minus(after, before[i]));
        // At most one per WAKE_SPACING_MS: far fewer wake-ups than writes, each the next number of the process's turns.
        assert.ok(
          turns.length <= Math.min(writes, elapsed / WAKE_SPACING_MS + 2),
          `${turns.length} wake-ups for ${writes} writes in ${elapsed} ms`,
        );
        for (let i = 1; i < turns.length; i++)
          assert.equal(turns[i].number, turns[i - 1].number + 1, `turns numbered as sent: ${JSON.stringify(turns)}`);
        // Both pumps still answer them in turns, and every delivery was made once.
        for (const [i, worker] of made.entries())
          assert.ok(worker.yes >= 1, `worker ${i} made no claim: ${JSON.stringify(made)}`);
        assert.equal(receiver.received.length, writes);
        const [{ n }] = await fixture.app.sql<{ n: number }>(
          'SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id ' +
            "WHERE w.title = 'Stream' AND d.status = 'succeeded' AND d.attempt_count = 1",
        );
        assert.equal(n, writes, 'every delivery made once, at its first attempt');
      });
    } finally {
      await listener.end();
      await receiver.close();
    }
  });

  it('of a stopped worker are taken by the other, each as it comes, and nothing is lost', async () => {
    const receiver = await new Receiver().start();
    try {
      await fixture.app.sql('UPDATE webhooks SET active = false');
      await fixture.hookFor(receiver, 'Stopped');
      await withTwoWorkers(async ([stopped, alive]) => {
        stopped.kill('SIGSTOP');
        await sleep(ROSTER_SETTLES_MS);
        const before = await claims(alive);
        await writesApart(receiver, 'Alone', WRITES, 80);
        const made = minus(await claims(alive), before);
        // Left to the stopped worker, half the writes would wait for the live one's poll (once a second,
        // several taken in one claim): far fewer claims than writes.
        assert.ok(made.yes >= WRITES * 0.8, `the live worker made ${made.yes} claims for ${WRITES} writes`);
        stopped.kill('SIGCONT');
        await sleep(500);
        const [{ n }] = await fixture.app.sql<{ n: number }>(
          'SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id ' +
            "WHERE w.title = 'Stopped' AND d.status = 'succeeded' AND d.attempt_count = 1",
        );
        assert.equal(n, WRITES, 'every delivery made once, at its first attempt');
        assert.equal(receiver.received.length, WRITES);
      });
    } finally {
      await receiver.close();
    }
  });
});

describe('a claim that finds its endpoint held by another statement', () => {
  it('claims again shortly, not at the next poll', async () => {
    const receiver = await new Receiver().start();
    const holder = new pg.Client({ connectionString: fixture.app.running.databaseUrl });
    await holder.connect();
    const worker = await fixture.startWorker();
    try {
      await fixture.app.sql('UPDATE webhooks SET active = false');
      const id = await fixture.hookFor(receiver, 'Held');
      await writesApart(receiver, 'Before holding', 1, 0);
      // Another claim or a settle holds the endpoint's counters row for its statement; here, for 300 ms.
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM webhook_counters WHERE webhook_id = $1 FOR NO KEY UPDATE', [id]);
      const from = receiver.received.length;
      const wrote = Date.now();
      const res = await fixture.app.request('POST', '/api/agents', {
        token: fixture.owner,
        body: { name: 'While held' },
      });
      assert.equal(res.status, 201, res.text);
      await sleep(300);
      await holder.query('COMMIT');
      await receiver.waitFor(from + 1, 10_000);
      const waited = Date.now() - wrote;
      // Left to the poll (a second after the wake-up's claim found the endpoint held), it would come after 1,000 ms.
      assert.ok(waited < 800, `delivered ${waited} ms after the write, the endpoint held for the first 300`);
    } finally {
      await holder.end();
      await kill(worker);
      await receiver.close();
    }
  });
});

describe('a recorded result', () => {
  it('wakes the pumps for the work it held back, and only for that', async () => {
    const receiver = await new Receiver().start();
    receiver.answer = () => ({ status: 200, delayMs: 300 });
    const listener = new pg.Client({ connectionString: fixture.app.running.databaseUrl });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    await listener.query('LISTEN webhook_due');
    const worker = await fixture.startWorker();
    try {
      await fixture.app.sql('UPDATE webhooks SET active = false');
      const id = await fixture.hookFor(receiver, 'Released');
      const woken = () => heard.filter((payload) => payload === `e${id}`).length;
      // Held back: one slot, two writes; the first's answer is held until the second write has committed, so the
      // second waits for the first's result, which wakes the pumps.
      await fixture.app.sql('UPDATE webhooks SET concurrency = 1 WHERE id = $1', [id]);
      let answerFirst = () => {};
      const firstAnswered = new Promise<void>((resolve) => {
        answerFirst = resolve;
      });
      receiver.answer = () => ({ status: 200, after: firstAnswered });
      const from = receiver.received.length;
      for (const name of ['Held back 0', 'Held back 1']) {
        const res = await fixture.app.request('POST', '/api/agents', { token: fixture.owner, body: { name } });
        assert.equal(res.status, 201, res.text);
      }
      await receiver.waitFor(from + 1, 10_000);
      receiver.answer = () => ({ status: 200, delayMs: 300 });
      await sleep(100);
      assert.equal(receiver.received.length, from + 1, 'the second waits for the first, its endpoint at its limit');
      const answered = Date.now();
      answerFirst();
      const [, second] = await receiver.waitFor(from + 2, 10_000).then((all) => all.slice(-2));
      await eventually(async () => woken() || undefined, 2000, 'the wake-up to reach the listener').catch(() => {});
      assert.equal(woken(), 1, `the settle of the first woke the pumps: ${heard.join(', ')}`);
      // Left to the poll (a second), the second would come long after the first's answer.
      assert.ok(second.at - answered < 500, `${second.at - answered} ms after the first was answered`);
      // Slots to spare: a write in flight (its answer takes 300 ms), and due work nobody announced written just before
      // that answer, `waited` ms overdue. Young, it has its own wake-up on its way (here, none); overdue, it missed it.
      await fixture.app.sql('UPDATE webhooks SET concurrency = 8 WHERE id = $1', [id]);
      const unannounced = async (waited: number) => {
        const from = receiver.received.length;
        const res = await fixture.app.request('POST', '/api/agents', {
          token: fixture.owner,
          body: { name: 'Flight' },
        });
        assert.equal(res.status, 201, res.text);
        await receiver.waitFor(from + 1, 10_000);
        await sleep(270);
        const [{ id: copy }] = await fixture.app.sql<{ id: string }>(
          `INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, attempt_count,
             final_attempt, next_attempt_at, next_trigger, created_at, event_id)
           SELECT $2, webhook_id, company_id, event, 'pending', payload, 0, 5, now() - make_interval(secs => $3),
             'scheduled', now(), event_id
           FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id DESC LIMIT 1 RETURNING id`,
          [id, newDeliveryId(), waited / 1000],
        );
        await sleep(300);
        const wakes = woken();
        // Made either way: by the wake-up, or at the pumps' poll.
        await eventually(
          async () =>
            (await fixture.app.sql('SELECT status FROM webhook_deliveries WHERE id = $1', [copy]))[0].status ===
              'succeeded' || undefined,
          10_000,
          'the unannounced delivery made',
        );
        // Whether the pumps' poll took it before the write in flight was settled (then no settle could wake for it).
        const [{ early }] = await fixture.app.sql<{ early: boolean }>(
          `SELECT (SELECT min(attempted_at) FROM webhook_attempts WHERE delivery_id = $1) <
             (SELECT max(a.finished_at) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
              WHERE d.webhook_id = $2 AND d.id <> $1) AS early`,
          [copy, id],
        );
        return { wakes, early };
      };
      // A poll that came first (a second apart, once in about thirty) leaves nothing to judge: the round is run again.
      const judged = async (waited: number) => {
        for (let round = 0; round < 3; round++) {
          const before = woken();
          const { wakes, early } = await unannounced(waited);
          if (!early) return wakes - before;
        }
        throw new Error('the poll came first three times');
      };
      assert.equal(await judged(0), 0, 'a result that held nothing back woke no pump for work just due');
      assert.equal(await judged(5000), 1, 'work overdue for longer than a wake-up takes gets one');
    } finally {
      await listener.end();
      await kill(worker);
      await receiver.close();
    }
  });
});
