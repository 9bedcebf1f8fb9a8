import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import mqtt from 'mqtt';
import { connect as natsConnect, type JsMsg } from 'nats';
import { createClient } from 'redis';
import type { ConnectionOptions } from 'node:tls';

// The machine's brokers as a subscriber uses them: each helper makes the
// exchange, stream or subscription a webhook publishes to (Switchboard
// declares nothing), collects what arrives with its headers, and tears down.

export interface Consumed {
  body: string;
  headers: Record<string, string>;
}

export interface Subscriber {
  /** The webhook URL that publishes here. */
  url: string;
  received: Consumed[];
  close(): Promise<void>;
}

const suffix = () => randomBytes(4).toString('hex');

/** A broker of the test's own over TLS (tls-brokers.ts): its port, and the client TLS to reach it with. */
export interface BrokerAt {
  port: number;
  tls: { ca: string; cert: string; key: string; checkServerIdentity: ConnectionOptions['checkServerIdentity'] };
}

/** A RabbitMQ exchange with a queue bound for `key`, consumed. */
export async function rabbitSubscriber(credentials = 'guest:guest', at?: BrokerAt): Promise<Subscriber> {
  const port = at?.port ?? 5672;
  const protocol = at ? 'amqps' : 'amqp';
  const connection = await amqp.connect(
    { protocol, hostname: '127.0.0.1', port, username: 'guest', password: 'guest' },
    at?.tls ?? {},
  );
  const channel = await connection.createChannel();
  const exchange = `sb-test-${suffix()}`;
  await channel.assertExchange(exchange, 'direct', { durable: false, autoDelete: true });
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, exchange, 'calls');
  const received: Consumed[] = [];
  await channel.consume(
    queue,
    (message) => {
      if (!message) return;
      const headers = Object.fromEntries(
        Object.entries(message.properties.headers ?? {}).map(([k, v]) => [k, String(v)]),
      );
      received.push({ body: message.content.toString(), headers });
    },
    { noAck: true },
  );
  return {
    url: `${protocol}://${credentials}@127.0.0.1:${port}/%2F?exchange=${exchange}&routing_key=calls`,
    received,
    close: async () => {
      await connection.close().catch(() => undefined);
    },
  };
}

/** A JetStream stream taking one subject, read by an ordered consumer. */
export async function natsSubscriber(at?: BrokerAt): Promise<Subscriber> {
  const port = at?.port ?? 4222;
  const connection = await natsConnect({ servers: `127.0.0.1:${port}`, ...(at ? { tls: at.tls } : {}) });
  const name = `SB_TEST_${suffix()}`;
  const subject = `sb.test.${name.toLowerCase()}`;
  await (await connection.jetstreamManager()).streams.add({ name, subjects: [subject], duplicate_window: 120e9 });
  const consumer = await connection.jetstream().consumers.get(name);
  const messages = await consumer.consume();
  const received: Consumed[] = [];
  void (async () => {
    for await (const message of messages as AsyncIterable<JsMsg>) {
      const headers: Record<string, string> = {};
      for (const [k] of message.headers ?? []) headers[k.toLowerCase()] = message.headers!.get(k);
      received.push({ body: message.string(), headers });
    }
  })();
  return {
    url: `nats://127.0.0.1:${port}?subject=${subject}`,
    received,
    close: async () => {
      await messages.close();
      await (await connection.jetstreamManager()).streams.delete(name).catch(() => undefined);
      await connection.close();
    },
  };
}

/** An empty Redis stream, read with XRANGE when asked. */
export async function redisSubscriber(at?: BrokerAt): Promise<Subscriber & { read(): Promise<Consumed[]> }> {
  const port = at?.port ?? 6379;
  const client = createClient({
    socket: { host: '127.0.0.1', port, ...(at ? { tls: true as const, ...at.tls } : {}) },
  } as Parameters<typeof createClient>[0]);
  await client.connect();
  const key = `sb-test-${suffix()}`;
  await client.sendCommand(['XGROUP', 'CREATE', key, 'g', '$', 'MKSTREAM']);
  const received: Consumed[] = [];
  const read = async () => {
    const entries = (await client.sendCommand(['XRANGE', key, '-', '+'])) as Array<[string, string[]]>;
    received.length = 0;
    for (const [, fields] of entries) {
      const headers: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) headers[fields[i]] = fields[i + 1];
      const { body, ...rest } = headers;
      received.push({ body, headers: rest });
    }
    return received;
  };
  return {
    url: `${at ? 'rediss' : 'redis'}://127.0.0.1:${port}/0?stream=${key}&maxlen=100000`,
    received,
    read,
    close: async () => {
      await client.sendCommand(['DEL', key]);
      await client.quit();
    },
  };
}

/** An MQTT 5 subscription to one topic at QoS 1. */
export async function mqttSubscriber(at?: BrokerAt): Promise<Subscriber> {
  const topic = `sb/test/${suffix()}`;
  const port = at?.port ?? 1883;
  const client = await mqtt.connectAsync({
    host: '127.0.0.1',
    port,
    protocolVersion: 5,
    ...(at ? { protocol: 'mqtts' as const, ...at.tls } : {}),
  } as mqtt.IClientOptions);
  const received: Consumed[] = [];
  client.on('message', (_topic, payload, packet) => {
    const properties = (packet.properties?.userProperties ?? {}) as Record<string, string | string[]>;
    const headers = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
    received.push({ body: payload.toString(), headers });
  });
  await client.subscribeAsync(topic, { qos: 1 });
  return {
    url: `${at ? 'mqtts' : 'mqtt'}://127.0.0.1:${port}?topic=${encodeURIComponent(topic)}`,
    received,
    close: async () => {
      await client.endAsync();
    },
  };
}
