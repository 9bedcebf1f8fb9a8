import { connect, headers as natsHeaders, type NatsConnection } from 'nats';
import { type BrokerClient, type BrokerConnect, type BrokerMessage, tlsOptions, within } from './types.js';

// NATS JetStream: published with Nats-Msg-Id set to the message id, so the
// stream's duplicate window drops a resend; success is the stream's ack. A
// subject no stream takes fails the attempt with a reason that says so.

export async function natsClient(to: BrokerConnect): Promise<BrokerClient> {
  const { target, address, timeoutMs } = to;
  const connection: NatsConnection = await within(
    connect({
      servers: `${address.includes(':') ? `[${address}]` : address}:${target.port}`,
      ...(target.username ? { user: target.username, pass: target.password } : {}),
      timeout: timeoutMs,
      reconnect: false,
      name: 'switchboard',
      // NATS negotiates TLS in its protocol; with the webhook's client TLS the connection must be TLS (docs/adr/0071-broker-tls.md).
      ...(to.tls ? { tls: tlsOptions(to) } : {}),
    }),
    timeoutMs,
    `no connection to NATS within ${timeoutMs} ms`,
  );
  let broken = false;
  void connection.closed().then(() => (broken = true));
  const jetstream = connection.jetstream();
  const subject = target.params.subject;
  return {
    get broken() {
      return broken || connection.isClosed();
    },
    async publish(message: BrokerMessage, ms: number): Promise<string> {
      const headers = natsHeaders();
      for (const [name, value] of Object.entries(message.headers)) headers.set(name, value);
      try {
        const ack = await jetstream.publish(subject, Buffer.from(message.body), {
          msgID: message.id,
          headers,
          timeout: ms,
        });
        return `stream ${ack.stream} sequence ${ack.seq}${ack.duplicate ? ' (a duplicate the stream dropped)' : ''}`;
      } catch (error) {
        const text = (error as Error).message;
        if (/503|no responders/i.test(text))
          throw new Error(`no JetStream stream takes subject "${subject}" (${text})`);
        throw error;
      }
    },
    async close() {
      broken = true;
      await connection.close().catch(() => undefined);
    },
  };
}
