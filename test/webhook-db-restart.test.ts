import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loginThrough } from './helpers/app.js';
import { embeddedPostgresSkip } from './helpers/processes.js';
import { type OwnPostgres, serviceOnOwnPostgres } from './helpers/own-postgres.js';
import { eventually, Receiver, sleep } from './helpers/receiver.js';

// Overload with a PostgreSQL restart loses nothing (the small version of the
// bench's 100,000-delivery run): 5,000 deliveries to ten endpoints (fast,
// slow, failing at first, hanging at first), and the service's PostgreSQL
// (embedded, on a fixed port) stopped and started again in the middle. Every
// delivery ends succeeded, no attempt number is missing, and no delivery is
// sent twice to a receiver that answered it 2xx within the timeout.

const skip = embeddedPostgresSkip();

describe('a PostgreSQL restart during delivery', { skip }, () => {
  let own: OwnPostgres | undefined;
  after(async () => {
    await own?.close();
  });

  it('loses no delivery and leaves no attempt number missing', async () => {
    own = await serviceOnOwnPostgres('webhook-restart', {
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_DELAYS: '500ms,500ms,500ms,500ms',
      WEBHOOK_TIMEOUT: '10s',
    });
    const database = own;
    const { url } = own;
    const receiver = await new Receiver().start();
    // Per endpoint (the path's kind): fast answers at once; slow after 50 ms; failing answers 503 to a
    // delivery's first attempt; hanging never answers the first attempts of its first four deliveries (its
    // first slots; the timeout ends them: a receiver that hung on everything would take its 500 deliveries
    // far too long). The timeout is the default 10 s: generous, so an answer in time on a loaded machine is one.
    const kinds = ['fast', 'fast', 'fast', 'fast', 'fast', 'slow', 'slow', 'failing', 'failing', 'hanging'];
    const answeredInTime = new Set<string>();
    const seen = new Set<string>();
    const again: string[] = [];
    let hung = 0;
    receiver.answer = (request) => {
      const id = String(request.headers['webhook-id']);
      const first = !seen.has(id);
      seen.add(id);
      const kind = /^\/(\w+)-\d+$/.exec(request.path)?.[1] ?? 'fast';
      if (kind === 'hanging' && first && hung < 4) {
        hung++;
        return { hang: true };
      }
      if (kind === 'failing' && first) return { status: 503 };
      if (!first && answeredInTime.has(id)) again.push(id);
      answeredInTime.add(id);
      return kind === 'slow' ? { status: 200, delayMs: 50 } : { status: 200 };
    };
    try {
      const token = await loginThrough(url);
      const call = (body: unknown) =>
        fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        });
      for (const [i, kind] of kinds.entries()) {
        const hook: Response = await fetch(`${url}/api/webhooks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({
            title: `${kind} ${i}`,
            url: `${receiver.url}/${kind}-${i}`,
            events: ['agent.created'],
          }),
        });
        assert.equal(hook.status, 201);
      }
      // 500 events, ten at a time: 5,000 deliveries.
      for (let i = 0; i < 500; i += 10) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, j) =>
            call({ query: `mutation { createAgent(name: "Overload ${i + j}") { id } }` }),
          ),
        );
        assert.deepEqual([...new Set(answers.map((r) => r.status))], [200]);
      }
      await receiver.waitFor(1000, 60_000);
      const atStop = receiver.received.length;
      await database.stopDatabase();
      await sleep(1000);
      await database.startDatabase();
      const sql = async (text: string) => {
        const client = database.server.getPgClient('postgres', '127.0.0.1');
        await client.connect();
        try {
          return (await client.query(text)).rows;
        } finally {
          await client.end();
        }
      };
      await eventually(
        async () => {
          const [{ n }] = await sql("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'");
          return n === 5000 ? true : undefined;
        },
        120_000,
        'every delivery to succeed after the restart',
      ).catch(async (error) => {
        console.log(
          await sql(
            'SELECT w.title, w.active, w.concurrency, w.paused_until, d.status, d.lease_token IS NOT NULL AS ' +
              'leased, (d.next_attempt_at <= now()) AS due, count(*) FROM webhook_deliveries d JOIN webhooks w ON ' +
              'w.id = d.webhook_id GROUP BY 1,2,3,4,5,6,7 ORDER BY 1',
          ),
          receiver.received.length,
          seen.size,
          answeredInTime.size,
        );
        throw error;
      });
      const gaps =
        await sql(`SELECT d.id FROM webhook_deliveries d WHERE d.attempt_count <> (SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = d.id)
                               OR d.attempt_count <> (SELECT max(number) FROM webhook_attempts a WHERE a.delivery_id = d.id)`);
      assert.deepEqual(gaps, [], 'every attempt number is recorded');
      // Every lease closed, through the restart: no endpoint counts an attempt still in flight.
      assert.deepEqual(
        await sql(
          'SELECT webhook_id, in_flight FROM webhook_counters WHERE in_flight <> 0 UNION ALL ' +
            'SELECT webhook_id, count(*)::int FROM webhook_deliveries WHERE lease_token IS NOT NULL GROUP BY 1',
        ),
        [],
      );
      assert.equal(answeredInTime.size, 5000, 'the receiver answered all 5,000 deliveries 2xx');
      assert.equal(seen.size, 5000);
      assert.ok(atStop < 5000, `the database went away with deliveries still to make (${atStop} received by then)`);
      assert.deepEqual(again, [], 'no delivery was sent again after a 2xx within the timeout');
    } finally {
      await receiver.close();
    }
  });
});
