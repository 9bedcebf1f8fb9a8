import { createClient } from 'redis';
import { type BrokerClient, type BrokerConnect, type BrokerMessage, tlsOptions, within } from './types.js';

// Redis Streams: XADD to an existing stream (NOMKSTREAM: Switchboard creates
// nothing), with an approximate MAXLEN when the URL gives one. The body is the
// field `body`, each header a field of its own name; success is the entry id.

export async function redisClient(to: BrokerConnect): Promise<BrokerClient> {
  const { target, address, timeoutMs } = to;
  const client = createClient({
    socket: {
      host: address,
      port: target.port,
      connectTimeout: timeoutMs,
      reconnectStrategy: false,
      ...(target.tls ? { tls: true as const, ...tlsOptions(to) } : {}),
    },
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    database: target.path ? Number(target.path) : 0,
  });
  let broken = false;
  // A connection that fails (a client certificate refused after the handshake, the server gone) fails the
  // attempts waiting on it with its reason, at once, and its socket is closed there: the client listens for one
  // socket error only, and a TLS alert is followed by the server's reset, which would otherwise go unheard.
  const lost = new Promise<never>((_, reject) =>
    client.on('error', (error: Error) => {
      broken = true;
      reject(error);
      // Once the client holds the socket (an error can come while it is still connecting).
      setImmediate(() => {
        try {
          if (client.isOpen) client.destroy();
        } catch {
          // Already gone.
        }
      });
    }),
  );
  lost.catch(() => undefined);
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
        Promise.race([
          client.sendCommand(['XADD', stream, 'NOMKSTREAM', ...trim, '*', 'body', message.body, ...fields]),
          lost,
        ]),
        ms,
        `no answer from Redis within ${ms} ms`,
      );
      if (id === null) throw new Error(`no stream "${stream}": Switchboard adds to an existing stream only`);
      return `entry ${String(id)} of stream "${stream}"`;
    },
    async close() {
      broken = true;
      if (client.isOpen) await client.close().catch(() => client.isOpen && client.destroy());
    },
  };
}
