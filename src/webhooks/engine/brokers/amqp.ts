import amqp, { type ChannelModel, type ConfirmChannel } from 'amqplib';
import { type BrokerClient, type BrokerConnect, type BrokerMessage, tlsOptions, within } from './types.js';

// RabbitMQ (AMQP 0-9-1): persistent messages published with publisher
// confirms and `mandatory`, to the exchange the URL names. A nack, a message
// no queue takes (returned), a missing exchange (the channel closes with 404)
// or no confirm within the timeout fails the attempt with that reason.

export async function amqpClient(to: BrokerConnect): Promise<BrokerClient> {
  const { target, address, timeoutMs } = to;
  const connection: ChannelModel = await within(
    amqp.connect(
      {
        protocol: target.tls ? 'amqps' : 'amqp',
        hostname: address,
        port: target.port,
        username: target.username || 'guest',
        password: target.password || 'guest',
        vhost: target.path || '/',
        heartbeat: 30,
      },
      { ...(target.tls ? tlsOptions(to) : {}), timeout: timeoutMs },
    ),
    timeoutMs,
    `no connection to RabbitMQ within ${timeoutMs} ms`,
  );
  let broken = false;
  let closedBy = '';
  const returned = new Set<string>();
  connection.on('error', () => undefined);
  connection.on('close', () => (broken = true));
  const channel: ConfirmChannel = await connection.createConfirmChannel();
  channel.on('error', (error: Error) => (closedBy = error.message));
  channel.on('close', () => (broken = true));
  // RabbitMQ returns an unroutable mandatory message before it confirms it.
  channel.on('return', (message) => returned.add(String(message.properties.messageId)));
  const exchange = target.params.exchange;
  const routingKey = target.params.routing_key ?? '';
  return {
    get broken() {
      return broken;
    },
    publish(message: BrokerMessage, ms: number): Promise<string> {
      const confirmed = new Promise<string>((resolve, reject) => {
        channel.publish(
          exchange,
          routingKey,
          Buffer.from(message.body),
          {
            persistent: true,
            mandatory: true,
            messageId: message.id,
            contentType: 'application/json',
            timestamp: Math.floor(Date.now() / 1000),
            headers: message.headers,
          },
          (error: unknown) => {
            if (returned.delete(message.id))
              return reject(
                new Error(`unroutable: no queue is bound to exchange "${exchange}" for routing key "${routingKey}"`),
              );
            if (error)
              return reject(new Error(closedBy || (error instanceof Error ? error.message : 'nacked by RabbitMQ')));
            resolve(`confirmed by RabbitMQ (exchange "${exchange}")`);
          },
        );
      });
      return within(confirmed, ms, `no confirm from RabbitMQ within ${ms} ms`);
    },
    async close() {
      broken = true;
      await connection.close().catch(() => undefined);
    },
  };
}
