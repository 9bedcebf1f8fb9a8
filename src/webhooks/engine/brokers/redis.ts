import { createClient } from 'redis';
import { type BrokerClient, type BrokerConnect, type BrokerMessage, within } from './types.js';

// Redis Streams: XADD to an existing stream (NOMKSTREAM: Switchboard creates
// nothing), with an approximate MAXLEN when the URL gives one. The body is the
// field `body`, each header a field of its own name; success is the entry id.

export async function redisClient({ target, address, timeoutMs }: BrokerConnect): Promise<BrokerClient> {
  const client = createClient({
    socket: {
      host: address,
      port: target.port,
      connectTimeout: timeoutMs,
      reconnectStrategy: false,
      ...(target.tls ? { tls: true as const, servername: target.host } : {}),
    },
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    database: target.path ? Number(target.path) : 0,
  });
  let broken = false;
  client.on('error', () => (broken = true));
  client.on('end', () => (broken = true));
  await within(client.connect(), timeoutMs, `no connection to Redis within ${timeoutMs} ms`);
  const stream = target.params.stream;
  const trim = target.params.maxlen ? ['MAXLEN', '~', target.params.maxlen] : [];
  return {
    get broken() {
      return broken || !client.isReady;
    },
    async publish(message: BrokerMessage, ms: number): Promise<string> {
      const fields = Object.entries(message.headers).flat();
      const id = await within(
        client.sendCommand(['XADD', stream, 'NOMKSTREAM', ...trim, '*', 'body', message.body, ...fields]),
        ms,
        `no answer from Redis within ${ms} ms`,
      );
      if (id === null) throw new Error(`no stream "${stream}": Switchboard adds to an existing stream only`);
      return `entry ${String(id)} of stream "${stream}"`;
    },
    async close() {
      broken = true;
      await client.quit().catch(() => client.destroy());
    },
  };
}
