import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { EVENT_NAMES } from '../src/events/catalog.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import {
  mqttSubscriber,
  natsSubscriber,
  rabbitSubscriber,
  redisSubscriber,
  type Subscriber,
} from './helpers/brokers.js';
import { eventually } from './helpers/receiver.js';

// Destinations beyond HTTP, against the machine's real brokers: the webhook's
// URL scheme names the broker; every event type arrives as the same signed
// message an HTTP receiver gets (verified with the standardwebhooks library
// from the message's headers); a broker that refuses fails the attempt with
// its reason in the log; credentials are sealed and shown as ***.

let app: TestApp;
let owner: string;

async function createHook(url: string, events: string[] = [...EVENT_NAMES]) {
  const res = await app.request('POST', '/api/webhooks', { token: owner, body: { title: 'Broker', url, events } });
  assert.equal(res.status, 201, res.text);
  return {
    id: res.body.data.id as number,
    secret: (res.body.data.secret ?? res.body.secret) as string,
    url: res.body.data.url as string,
  };
}

/** The test send of every event type, then what the subscriber has, each verified. */
async function everyEventTo(subscriber: Subscriber & { read?: () => Promise<unknown> }) {
  const hook = await createHook(subscriber.url);
  for (const event of EVENT_NAMES) {
    const res = await app.request('POST', `/api/webhooks/${hook.id}/test`, { token: owner, body: { event } });
    assert.equal(res.status, 202, res.text);
  }
  await eventually(
    async () => {
      await subscriber.read?.();
      return subscriber.received.length >= EVENT_NAMES.length || undefined;
    },
    20_000,
    `${EVENT_NAMES.length} messages`,
  );
  const verifier = new StandardWebhook(hook.secret);
  const events = subscriber.received.map((message) => {
    const payload = verifier.verify(message.body, message.headers) as { event: string };
    assert.equal(message.headers['x-webhook-event'], payload.event);
    return payload.event;
  });
  assert.deepEqual(events.sort(), [...EVENT_NAMES].sort());
  // The broker's ack reaches Switchboard after the subscriber has the message: each delivery is recorded succeeded.
  await eventually(
    async () => {
      const [{ n }] = await app.sql(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'",
        [hook.id],
      );
      return n === EVENT_NAMES.length || undefined;
    },
    10_000,
    'every delivery succeeded',
  );
  return hook;
}

/** The last attempt's error of the webhook's first delivery, once it has one. */
const attemptError = (hookId: number) =>
  eventually(
    async () =>
      (
        await app.sql<{ error: string | null }>(
          'SELECT a.error FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = $1 AND a.finished_at IS NOT NULL',
          [hookId],
        )
      )[0]?.error ?? undefined,
    15_000,
    'a failed attempt',
  );

before(async () => {
  app = await startTestApp({ WEBHOOK_RETRY_DELAYS: '200ms,200ms,200ms,200ms' });
  owner = await app.login('owner@acme.test');
});
after(() => app.close());

describe('broker destinations', () => {
  it('RabbitMQ: every event type, confirmed and verified; the password sealed and shown as ***', async () => {
    const subscriber = await rabbitSubscriber();
    try {
      const hook = await everyEventTo(subscriber);
      assert.match(hook.url, /^amqp:\/\/guest:\*\*\*@127\.0\.0\.1:5672\/%2F\?exchange=/);
      const [row] = await app.sql('SELECT url, url_sealed FROM webhooks WHERE id = $1', [hook.id]);
      assert.equal(row.url, hook.url);
      assert.doesNotMatch(row.url_sealed, /guest:guest/);
      const [attempt] = await app.sql(
        'SELECT a.response_body FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = $1 LIMIT 1',
        [hook.id],
      );
      assert.match(attempt.response_body, /confirmed by RabbitMQ/);
      // Saved again with the URL as shown: the stored password is kept, and deliveries go on.
      const kept = await app.request('PUT', `/api/webhooks/${hook.id}`, { token: owner, body: { url: hook.url } });
      assert.equal(kept.status, 200, kept.text);
      const before = subscriber.received.length;
      await app.request('POST', `/api/webhooks/${hook.id}/test`, { token: owner, body: { event: 'call.started' } });
      await eventually(async () => subscriber.received.length > before || undefined, 10_000, 'one more message');
    } finally {
      await subscriber.close();
    }
  });

  it('NATS JetStream: every event type, acked by the stream and verified', async () => {
    const subscriber = await natsSubscriber();
    try {
      await everyEventTo(subscriber);
    } finally {
      await subscriber.close();
    }
  });

  it('Redis Streams: every event type, one entry each with the body and the headers as fields', async () => {
    const subscriber = await redisSubscriber();
    try {
      await everyEventTo(subscriber);
    } finally {
      await subscriber.close();
    }
  });

  it('MQTT 5: every event type at QoS 1, the headers as user properties', async () => {
    const subscriber = await mqttSubscriber();
    try {
      await everyEventTo(subscriber);
    } finally {
      await subscriber.close();
    }
  });

  it("fails an attempt a broker refuses with the broker's reason, never its password", async () => {
    const cases = [
      ['amqp://guest:not-the-password@127.0.0.1:5672/%2F?exchange=amq.direct', /ACCESS_REFUSED|auth/i],
      ['amqp://guest:guest@127.0.0.1:5672/%2F?exchange=sb-no-such-exchange', /no exchange 'sb-no-such-exchange'/],
      ['amqp://guest:guest@127.0.0.1:5672/%2F?exchange=amq.direct&routing_key=nobody', /unroutable/],
      ['nats://127.0.0.1:4222?subject=sb.nobody.listens', /no JetStream stream takes subject "sb.nobody.listens"/],
      ['redis://127.0.0.1:6379/0?stream=sb-no-such-stream', /no stream "sb-no-such-stream"/],
      ['redis://127.0.0.1:6381/0?stream=anything', /ECONNREFUSED/],
    ] as const;
    for (const [url, reason] of cases) {
      const hook = await createHook(url, ['call.started']);
      await app.request('POST', `/api/webhooks/${hook.id}/test`, { token: owner, body: { event: 'call.started' } });
      const error = await attemptError(hook.id);
      assert.match(error, reason, `${url}: ${error}`);
      assert.doesNotMatch(error, /not-the-password/);
    }
  });

  it('refuses a broker URL without its target or with a wildcard, naming the form it takes', async () => {
    for (const [url, text] of [
      [
        'amqp://127.0.0.1:5672/',
        'The url field must name exchange (amqp://user:pass@host:port/vhost?exchange=NAME&routing_key=KEY).',
      ],
      ['nats://127.0.0.1:4222?subject=a.*', "The url field's subject must be a subject without wildcards or spaces."],
      ['redis://127.0.0.1:6379/x?stream=s', 'The url field\'s path must be a database number such as /0 (got "/x").'],
      ['mqtt://127.0.0.1:1883?topic=a/%23', "The url field's topic must be a topic without wildcards (# or +)."],
      [
        'kafka://127.0.0.1:9092?topic=a',
        'The url field must be an http, https, amqp, amqps, nats, redis, rediss, mqtt or mqtts URL (got kafka).',
      ],
      ['https://user:pw@example.com/hook', 'The url field must not carry credentials for http or https.'],
    ]) {
      const res = await app.request('POST', '/api/webhooks', {
        token: owner,
        body: { title: 'Bad broker', url, events: ['call.started'] },
      });
      assert.equal(res.status, 422, `${url}: ${res.text}`);
      assert.deepEqual(res.body.errors.url, [text]);
    }
  });
});
