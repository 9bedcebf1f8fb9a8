import { type BrokerKind, brokerTarget, withoutPassword } from '../../config/broker-url.js';
import type { Destination } from '../../config/destination.js';
import type { ClientTls, Send } from '../attempt.js';
import { amqpClient } from './amqp.js';
import { mqttClient } from './mqtt.js';
import { natsClient } from './nats.js';
import { redisClient } from './redis.js';
import type { BrokerClient, BrokerConnect } from './types.js';

// One attempt to a broker destination (docs/adr/0065-broker-destinations.md).
// A connection per destination (its whole URL and checked address) is made
// at its first attempt and reused by the next ones. One that breaks (the
// broker went away) is made again at a later attempt, no sooner than a
// backoff that doubles from 100 ms to 5 s while connecting keeps failing;
// attempts meanwhile fail at once, and their deliveries retry on schedule.

const CONNECT: Record<BrokerKind, (connect: BrokerConnect) => Promise<BrokerClient>> = {
  amqp: amqpClient,
  nats: natsClient,
  redis: redisClient,
  mqtt: mqttClient,
};

interface Pooled {
  client?: Promise<BrokerClient>;
  failures: number;
  retryAt: number;
  lastError: string;
}

const pool = new Map<string, Pooled>();
/** A connection closed; one that is already gone has nothing to say. */
const closeQuietly = (client: BrokerClient) => client.close().catch(() => undefined);
const BACKOFF_MS = [100, 200, 400, 800, 1600, 3200, 5000];
/** Destinations kept at most; beyond it the least recently used is closed. */
const POOL_MAX = 500;

async function clientFor(
  url: URL,
  destination: Destination,
  timeoutMs: number,
  tls?: ClientTls,
): Promise<BrokerClient> {
  const key = `${url.toString()}|${destination.address}|${tls?.id ?? ''}`;
  let entry = pool.get(key);
  if (entry) {
    pool.delete(key);
    pool.set(key, entry);
  } else {
    pool.set(key, (entry = { failures: 0, retryAt: 0, lastError: '' }));
    if (pool.size > POOL_MAX) {
      const [oldest, evicted] = pool.entries().next().value as [string, Pooled];
      pool.delete(oldest);
      void evicted.client?.then(closeQuietly, () => undefined);
    }
  }
  const current = entry.client && (await entry.client.catch(() => undefined));
  if (current && !current.broken) return current;
  if (current) void closeQuietly(current);
  entry.client = undefined;
  if (Date.now() < entry.retryAt)
    throw new Error(`broker unreachable, connecting again in ${entry.retryAt - Date.now()} ms: ${entry.lastError}`);
  const target = brokerTarget(url);
  const made = CONNECT[target.kind]({ target, address: destination.address, timeoutMs, tls });
  entry.client = made;
  try {
    const client = await made;
    entry.failures = 0;
    return client;
  } catch (error) {
    entry.client = undefined;
    entry.lastError = (error as Error).message;
    entry.retryAt = Date.now() + BACKOFF_MS[Math.min(entry.failures++, BACKOFF_MS.length - 1)];
    throw error;
  }
}

/** Publishes the signed message to the broker the URL names; the broker's answer or reason, never the URL's password. */
export const sendToBroker: Send = async (url, destination, body, headers, timeoutMs, options) => {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const client = await clientFor(url, destination, timeoutMs, options?.tls);
    const answer = await client.publish({ id: headers['webhook-id'], body, headers }, timeoutMs);
    return { statusCode: null, responseBody: answer, error: null, durationMs: elapsed() };
  } catch (error) {
    const reason = withoutPassword(String((error as Error)?.message ?? error), url.toString());
    const timedOut = /within \d+ ms/.test(reason);
    return {
      statusCode: null,
      responseBody: null,
      error: `${url.protocol}//${url.host}: ${reason}`,
      durationMs: elapsed(),
      ...(timedOut ? { timedOut } : {}),
    };
  }
};

/** Closes every kept broker connection (at shutdown). */
export async function closeBrokers(): Promise<void> {
  const entries = [...pool.values()];
  pool.clear();
  await Promise.all(entries.map((entry) => entry.client?.then(closeQuietly, () => undefined)));
}
