import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import amqp from 'amqplib';
import mqtt from 'mqtt';
import { connect as natsConnect } from 'nats';
import { createClient } from 'redis';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { EVENT_NAMES } from '../src/events/catalog.js';
import { MQTT_CONNECTIONS_MAX } from '../src/webhooks/engine/brokers/mqtt.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import {
  type Consumed,
  mqttSubscriber,
  natsSubscriber,
  rabbitSubscriber,
  redisSubscriber,
  type Subscriber,
} from './helpers/brokers.js';
import { allSucceeded, firstAttemptError, queueDeliveries } from './helpers/deliveries.js';
import { eventually, sleep } from './helpers/receiver.js';

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
  await allSucceeded(app, hook.id, EVENT_NAMES.length);
  return hook;
}

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

  it('MQTT 5: concurrent deliveries go out one per connection over a few, so no PUBACK waits behind another', async () => {
    const subscriber = await mqttSubscriber();
    try {
      const hook = await createHook(subscriber.url, ['agent.created']);
      const before = connectionsOfThisProcess(1883);
      const queued = await queueDeliveries(app, [hook.id], 400, 'mqtt connections');
      await allSucceeded(app, hook.id, queued.length);
      const opened = connectionsOfThisProcess(1883) - before;
      assert.ok(opened > 1 && opened <= MQTT_CONNECTIONS_MAX, `${opened} connections for 400 concurrent deliveries`);
      const verifier = new StandardWebhook(hook.secret);
      const ids = subscriber.received.map((m) => (verifier.verify(m.body, m.headers), m.headers['webhook-id']));
      assert.deepEqual(new Set(ids), new Set(queued.map((d) => d.id)));
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
      const error = await firstAttemptError(app, hook.id);
      assert.match(error, reason, `${url}: ${error}`);
      assert.doesNotMatch(error, /not-the-password/);
    }
  });

  it('tells of a broker delivery whose schedule ran out, as for HTTP (delivery.exhausted)', async () => {
    const hook = await createHook('redis://127.0.0.1:6379/0?stream=sb-never-made', ['agent.created']);
    assert.equal(
      (await app.request('POST', '/api/agents', { token: owner, body: { name: 'Never streamed' } })).status,
      201,
    );
    const notice = await eventually(
      async () =>
        (
          await app.sql<{ data: { delivery_id: string } }>(
            "SELECT data FROM events WHERE type = 'delivery.exhausted' AND data->>'webhook_id' = $1",
            [String(hook.id)],
          )
        )[0],
      20_000,
      'delivery.exhausted',
    );
    const [delivery] = await app.sql('SELECT id, status, attempt_count FROM webhook_deliveries WHERE webhook_id = $1', [
      hook.id,
    ]);
    assert.deepEqual(delivery, { id: notice.data.delivery_id, status: 'failed', attempt_count: 5 });
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

// Each broker goes away in the middle of a run of 2,000 deliveries and comes
// back: every delivery ends succeeded, every message is in the broker at
// least once, and a message sent again carries the same message id and body.
// RabbitMQ, NATS and Mosquitto are restarted with the machine's own commands;
// the machine's Redis keeps nothing on disk (a restart would empty the
// subscriber's stream itself), so it is stopped with SIGSTOP and continued.

const TOTAL = 2000;
const suffix = () => randomBytes(4).toString('hex');
const run = (command: string, args: string[]) => execFileSync(command, args, { stdio: 'ignore', timeout: 60_000 });
/** The machine's broker: the process listening on its port (other tests may run brokers of the same binary). */
const pidOn = (port: number) => {
  const pid = /pid=(\d+)/.exec(execFileSync('ss', ['-Hltnp', `sport = :${port}`]).toString())?.[1];
  if (!pid) throw new Error(`nothing listens on ${port}`);
  return pid;
};
const listening = async (port: number) => {
  const { connect } = await import('node:net');
  return new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
  });
};
const portState = (port: number, open: boolean) =>
  eventually(
    async () => ((await listening(port)) === open ? true : undefined),
    60_000,
    `port ${port} ${open ? 'open' : 'closed'}`,
  );

interface Case {
  /** Makes the subscriber's side; gives the webhook URL and how to read everything that arrived. */
  subscribe(): Promise<{ url: string; read(): Promise<Consumed[]>; close(): Promise<void> }>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** How long it stays away (a stopped Redis holds connections open: longer than WEBHOOK_TIMEOUT, so attempts fail). */
  awayMs?: number;
}

/** Established connections of this process (its workers run in it) to a loopback port. */
function connectionsOfThisProcess(port: number): number {
  const lines = execFileSync('ss', ['-Htnp', 'state', 'established', `dst 127.0.0.1:${port}`])
    .toString()
    .split('\n');
  return lines.filter((line) => line.includes(`pid=${process.pid},`)).length;
}

/** The stopped Redis, continued by its case's start (a stopped server still listens, but answers nobody). */
let redisPid = '';

const CASES: Record<string, Case> = {
  RabbitMQ: {
    async subscribe() {
      const name = `sb-restart-${suffix()}`;
      const setup = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
      const channel = await setup.createChannel();
      await channel.assertExchange(name, 'direct', { durable: true });
      await channel.assertQueue(name, { durable: true });
      await channel.bindQueue(name, name, 'calls');
      await setup.close();
      return {
        url: `amqp://guest:guest@127.0.0.1:5672/%2F?exchange=${name}&routing_key=calls`,
        async read() {
          const connection = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
          const reader = await connection.createChannel();
          const all: Consumed[] = [];
          for (
            let message = await reader.get(name, { noAck: true });
            message;
            message = await reader.get(name, { noAck: true })
          )
            all.push({
              body: message.content.toString(),
              headers: Object.fromEntries(
                Object.entries(message.properties.headers ?? {}).map(([k, v]) => [k, String(v)]),
              ),
            });
          await connection.close();
          return all;
        },
        async close() {
          const connection = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
          const cleanup = await connection.createChannel();
          await cleanup.deleteQueue(name);
          await cleanup.deleteExchange(name);
          await connection.close();
        },
      };
    },
    async stop() {
      run('rabbitmqctl', ['stop_app']);
      await portState(5672, false);
    },
    async start() {
      run('rabbitmqctl', ['start_app']);
      await portState(5672, true);
    },
  },
  'NATS JetStream': {
    async subscribe() {
      const name = `SB_RESTART_${suffix()}`;
      const subject = `sb.restart.${name.toLowerCase()}`;
      const setup = await natsConnect({ servers: '127.0.0.1:4222' });
      await (await setup.jetstreamManager()).streams.add({ name, subjects: [subject], duplicate_window: 120e9 });
      await setup.close();
      return {
        url: `nats://127.0.0.1:4222?subject=${subject}`,
        async read() {
          const connection = await natsConnect({ servers: '127.0.0.1:4222' });
          const stream = await (await connection.jetstreamManager()).streams.info(name);
          const consumer = await connection.jetstream().consumers.get(name);
          const all: Consumed[] = [];
          const messages = await consumer.fetch({ max_messages: stream.state.messages, expires: 5000 });
          for await (const message of messages) {
            const headers: Record<string, string> = {};
            for (const [k] of message.headers ?? []) headers[k.toLowerCase()] = message.headers!.get(k);
            all.push({ body: message.string(), headers });
          }
          await connection.close();
          return all;
        },
        async close() {
          const connection = await natsConnect({ servers: '127.0.0.1:4222' });
          await (await connection.jetstreamManager()).streams.delete(name).catch(() => undefined);
          await connection.close();
        },
      };
    },
    async stop() {
      run('kill', ['-TERM', pidOn(4222)]);
      await portState(4222, false);
    },
    async start() {
      run('start-stop-daemon', [
        '--start',
        '--oknodo',
        '--background',
        // Matched by a pid file of the test's own: a nats-server of another test is not the machine's.
        '--make-pidfile',
        '--pidfile',
        path.join(tmpdir(), 'sb-test-nats-server.pid'),
        '--exec',
        '/usr/sbin/nats-server',
        '--',
        '-a',
        '127.0.0.1',
        '-p',
        '4222',
        '-js',
        '-sd',
        '/var/lib/nats-server',
        '-l',
        '/var/log/nats-server.log',
      ]);
      await portState(4222, true);
    },
  },
  'Redis Streams': {
    async subscribe() {
      const key = `sb-restart-${suffix()}`;
      const client = createClient({ url: 'redis://127.0.0.1:6379' });
      await client.connect();
      await client.sendCommand(['XGROUP', 'CREATE', key, 'g', '$', 'MKSTREAM']);
      return {
        url: `redis://127.0.0.1:6379/0?stream=${key}`,
        async read() {
          const entries = (await client.sendCommand(['XRANGE', key, '-', '+'])) as Array<[string, string[]]>;
          return entries.map(([, fields]) => {
            const all: Record<string, string> = {};
            for (let i = 0; i < fields.length; i += 2) all[fields[i]] = fields[i + 1];
            const { body, ...headers } = all;
            return { body, headers };
          });
        },
        async close() {
          await client.sendCommand(['DEL', key]);
          await client.quit();
        },
      };
    },
    async stop() {
      redisPid = pidOn(6379);
      run('kill', ['-STOP', redisPid]);
    },
    async start() {
      run('kill', ['-CONT', redisPid]);
    },
    awayMs: 4500,
  },
  'MQTT (Mosquitto)': {
    async subscribe() {
      const topic = `sb/restart/${suffix()}`;
      // A persistent session at QoS 1: the broker keeps what arrives while this subscriber is away, across its restart.
      const client = await mqtt.connectAsync({
        host: '127.0.0.1',
        port: 1883,
        protocolVersion: 5,
        clientId: `sb-restart-${suffix()}`,
        clean: false,
        properties: { sessionExpiryInterval: 600 },
        reconnectPeriod: 500,
      });
      const all: Consumed[] = [];
      client.on('message', (_topic, payload, packet) => {
        const properties = (packet.properties?.userProperties ?? {}) as Record<string, string>;
        all.push({ body: payload.toString(), headers: { ...properties } });
      });
      await client.subscribeAsync(topic, { qos: 1 });
      return {
        url: `mqtt://127.0.0.1:1883?topic=${encodeURIComponent(topic)}`,
        read: async () => all,
        close: () => client.endAsync(),
      };
    },
    async stop() {
      run('kill', ['-TERM', pidOn(1883)]);
      await portState(1883, false);
    },
    async start() {
      run('mosquitto', ['-d', '-c', '/etc/mosquitto/mosquitto.conf']);
      await portState(1883, true);
    },
  },
};

const succeeded = async (hookId: number) =>
  (
    await app.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'",
      [hookId],
    )
  )[0].n;

describe('a broker that goes away mid-run loses nothing', () => {
  // Retries far enough apart that a restart (several seconds for RabbitMQ) does not run through a schedule.
  before(async () => {
    await app.close();
    app = await startTestApp({ WEBHOOK_RETRY_DELAYS: '2s,4s,8s,16s', WEBHOOK_TIMEOUT: '3s' });
    owner = await app.login('owner@acme.test');
  });
  for (const [name, broker] of Object.entries(CASES)) {
    it(`${name}: ${TOTAL} deliveries, the broker stopped and started in the middle`, async () => {
      const subscriber = await broker.subscribe();
      let stopped = false;
      try {
        // At most 250 a second, so that the run is still going when the broker goes away.
        const created = await app.request('POST', '/api/webhooks', {
          token: owner,
          body: { title: `Restart ${name}`, url: subscriber.url, events: ['agent.created'], rate_limit: 250 },
        });
        assert.equal(created.status, 201, created.text);
        const hook = { id: created.body.data.id as number, secret: created.body.data.secret as string };
        const queued = await queueDeliveries(app, [hook.id], TOTAL, `restart ${name}`);
        await eventually(async () => ((await succeeded(hook.id)) >= 300 ? true : undefined), 60_000, '300 delivered');
        await broker.stop();
        stopped = true;
        const during = await succeeded(hook.id);
        await sleep(broker.awayMs ?? 2000);
        await broker.start();
        stopped = false;
        await eventually(
          async () => ((await succeeded(hook.id)) === TOTAL ? true : undefined),
          120_000,
          'every delivery',
        );
        assert.ok(during < TOTAL, `the run was over (${during}) before the broker went away`);
        const failedAttempts = await app.sql<{ n: number }>(
          'SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = $1 AND a.error IS NOT NULL',
          [hook.id],
        );
        assert.ok(failedAttempts[0].n > 0, 'no attempt failed while the broker was away');

        const arrived = await eventually(
          async () => {
            const all = await subscriber.read();
            return new Set(all.map((m) => m.headers['webhook-id'])).size >= TOTAL ? all : undefined;
          },
          30_000,
          `${TOTAL} distinct messages in the broker`,
        );
        const bodies = new Map<string, string>();
        for (const message of arrived) {
          const id = message.headers['webhook-id'];
          const seen = bodies.get(id);
          if (seen !== undefined) assert.equal(message.body, seen, `message ${id} sent again with another body`);
          bodies.set(id, message.body);
        }
        assert.deepEqual([...bodies.keys()].sort(), queued.map((d) => d.id).sort());
        const verifier = new StandardWebhook(hook.secret);
        for (const message of arrived.slice(0, 50)) verifier.verify(message.body, message.headers);
      } finally {
        if (stopped) await broker.start();
        await subscriber.close();
      }
    });
  }
});
