import { BROKER_SCHEMES } from './broker-url.js';

// docs/webhooks.md's section on destinations beyond HTTP (src/webhooks/config/docs.ts).

const forms = [...new Set(Object.values(BROKER_SCHEMES).map((scheme) => scheme.form))]
  .map((form) => `- \`${form}\``)
  .join('\n');

const code = (text: string) => `\`\`\`ts\n${text}\n\`\`\``;

export const BROKER_DOC = `## Destinations beyond HTTP

A webhook's URL scheme names where its deliveries go. Besides \`https://\`
and \`http://\`, a webhook publishes to a broker the subscriber already runs:

${forms}

- **The same signed message.** The body is the JSON body of an HTTP delivery;
  \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`, the \`x-webhook-*\`
  headers and the webhook's custom headers travel as the message's headers
  (AMQP headers, NATS headers, MQTT 5 user properties, Redis stream fields
  beside the field \`body\`). A consumer verifies it with the
  \`standardwebhooks\` library exactly as an HTTP receiver does.
- **What counts as delivered.** RabbitMQ: the publisher confirm of a persistent
  message published \`mandatory\` (a nack, an unroutable message or no confirm
  within \`WEBHOOK_TIMEOUT\` fails the attempt). NATS: the JetStream ack; the
  message id is \`Nats-Msg-Id\`, so a resend within the stream's duplicate
  window is dropped. Redis: the entry id of \`XADD\` (approximate \`MAXLEN\`
  when the URL gives \`maxlen\`). MQTT: the PUBACK of a QoS 1 publish.
- **Switchboard declares nothing.** The exchange, stream, key and topic are
  yours: a missing exchange or stream fails the attempt, and its reason (the
  broker's own words) is in the delivery log.
- **Everything else is as for HTTP**: the outbox, at-least-once, the retry
  schedule, the delivery log, filters, operator events, recover and replay,
  fairness, adaptive concurrency and fencing. A broker host obeys the same
  address rules as an HTTP receiver.
- **Credentials** in the URL are kept encrypted and shown as \`***\`; give the
  URL back with \`***\` to keep the stored password. They never appear in logs
  or in the delivery log.
- **Connections** are kept per destination and reused; one that breaks is made
  again at a later attempt, after a backoff that grows to 5 s while the broker
  stays away, and the deliveries meanwhile retry on their schedule. An MQTT
  destination keeps up to 16, one publish in flight on each: a broker that
  leaves Nagle's algorithm on (Mosquitto without \`set_tcp_nodelay true\`)
  would otherwise hold a PUBACK behind the one before it for up to 40 ms.
- **TLS**: \`amqps\`, \`rediss\` and \`mqtts\` connect over TLS, and NATS when
  the server requires it; a webhook's \`credentials.tls\` gives the CA to trust
  and a client certificate for mutual TLS.

A RabbitMQ consumer, verifying each message:

${code(`import amqp from 'amqplib';
import { Webhook } from 'standardwebhooks';

const verifier = new Webhook(process.env.WEBHOOK_SECRET!);
const channel = await (await amqp.connect('amqp://localhost')).createChannel();
await channel.consume('calls', (message) => {
  if (!message) return;
  const headers = Object.fromEntries(Object.entries(message.properties.headers ?? {}).map(([k, v]) => [k, String(v)]));
  const event = verifier.verify(message.content.toString(), headers); // throws on a bad signature
  channel.ack(message);
});`)}

NATS JetStream, Redis Streams and MQTT 5 verify the same way: the body text and
a plain object of the headers.

${code(`// NATS JetStream (the nats package): a consumer of the stream that takes the subject.
for await (const message of await (await js.consumers.get('CALLS')).consume()) {
  const headers = Object.fromEntries([...message.headers!].map(([name]) => [name, message.headers!.get(name)]));
  verifier.verify(message.string(), headers);
  message.ack();
}

// Redis Streams (the redis package): the field body, and the headers as the other fields.
const [[, entries]] = await redis.xReadGroup('workers', 'me', { key: 'calls', id: '>' }, { COUNT: 100 });
for (const { id, message: { body, ...headers } } of entries) {
  verifier.verify(body, headers);
  await redis.xAck('calls', 'workers', id);
}

// MQTT 5 (the mqtt package): the headers are the message's user properties.
client.on('message', (topic, payload, packet) => {
  verifier.verify(payload.toString(), packet.properties!.userProperties as Record<string, string>);
});`)}
`;
