import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from './helpers/app.js';
import {
  mqttSubscriber,
  natsSubscriber,
  rabbitSubscriber,
  redisSubscriber,
  type Subscriber,
} from './helpers/brokers.js';
import { makeAuthority, type TestAuthority } from './helpers/certificates.js';
import { allSucceeded, firstAttemptError } from './helpers/deliveries.js';
import { eventually } from './helpers/receiver.js';
import { startTlsBrokers, type TlsBrokers } from './helpers/tls-brokers.js';

// Brokers over TLS (docs/adr/0071-broker-tls.md), against real servers of the
// machine's binaries started with a certificate of a test CA: amqps, rediss,
// mqtts, and NATS requiring TLS. A webhook's client TLS credentials (the CA to
// trust, a client certificate for mutual TLS) reach the broker; every message
// is verified with the standardwebhooks library; without the CA or the client
// certificate the attempt fails with the TLS reason in the log.

let app: TestApp;
let owner: string;
let authority: TestAuthority;
let brokers: TlsBrokers;

const EVENTS = ['call.started', 'agent.created', 'sms.received'];
const clientTls = () => ({
  ca: authority.ca,
  cert: authority.client.cert,
  key: authority.client.key,
  // NATS upgrades a connected socket to TLS: its identity is checked against the address asked for.
  checkServerIdentity: (_host: string, certificate: PeerCertificate) => checkServerIdentity('127.0.0.1', certificate),
});
const webhookTls = () => ({
  tls: { client_certificate: authority.client.cert, client_key: authority.client.key, ca: authority.ca },
});

async function createHook(url: string, credentials: unknown) {
  const res = await app.request('POST', '/api/webhooks', {
    token: owner,
    body: { title: 'Broker over TLS', url, events: EVENTS, credentials },
  });
  assert.equal(res.status, 201, res.text);
  return { id: res.body.data.id as number, secret: res.body.data.secret as string, body: res.body.data };
}

const testSends = async (hookId: number) => {
  for (const event of EVENTS) {
    const res = await app.request('POST', `/api/webhooks/${hookId}/test`, { token: owner, body: { event } });
    assert.equal(res.status, 202, res.text);
  }
};

before(async () => {
  authority = makeAuthority();
  brokers = await startTlsBrokers(authority);
  app = await startTestApp({ WEBHOOK_RETRY_DELAYS: '200ms,200ms,200ms,200ms' });
  owner = await app.login('owner@acme.test');
});
after(async () => {
  await app?.close();
  await brokers?.stop();
});

describe('brokers over TLS', () => {
  for (const [name, subscribe] of [
    [
      'amqps (RabbitMQ, the CA trusted)',
      () => rabbitSubscriber('guest:guest', { port: brokers.amqp, tls: clientTls() }),
    ],
    ['rediss (Redis, mutual TLS)', () => redisSubscriber({ port: brokers.redis, tls: clientTls() })],
    ['mqtts (Mosquitto, mutual TLS)', () => mqttSubscriber({ port: brokers.mqtt, tls: clientTls() })],
    ['nats (a server requiring TLS, mutual TLS)', () => natsSubscriber({ port: brokers.nats, tls: clientTls() })],
  ] as const) {
    it(`${name}: every message arrives over TLS, signed and verified; the key is never shown`, async () => {
      const subscriber: Subscriber & { read?: () => Promise<unknown> } = await subscribe();
      try {
        const hook = await createHook(subscriber.url, webhookTls());
        assert.equal(hook.body.credentials.tls.custom_ca, true, JSON.stringify(hook.body.credentials));
        assert.equal(hook.body.credentials.tls.client_certificate_subject, 'CN=switchboard-client');
        assert.doesNotMatch(JSON.stringify(hook.body), /PRIVATE KEY/);
        await testSends(hook.id);
        const received = await eventually(
          async () => {
            await subscriber.read?.();
            return subscriber.received.length >= EVENTS.length ? subscriber.received : undefined;
          },
          20_000,
          `${EVENTS.length} messages`,
        );
        const verifier = new StandardWebhook(hook.secret);
        const events = received.map(
          (message) => (verifier.verify(message.body, message.headers) as { event: string }).event,
        );
        assert.deepEqual(events.sort(), [...EVENTS].sort());
        await allSucceeded(app, hook.id, EVENTS.length);
      } finally {
        await subscriber.close();
      }
    });
  }

  it("fails an attempt whose broker's certificate it cannot trust, or that wants a client certificate, with the TLS reason", async () => {
    const cases = [
      // No CA: the test CA's server certificate is not trusted.
      [`amqps://guest:guest@127.0.0.1:${brokers.amqp}/%2F?exchange=amq.direct`, null, /self-signed certificate/],
      [`rediss://127.0.0.1:${brokers.redis}/0?stream=s`, null, /self-signed certificate/],
      // The CA but no client certificate: the broker ends the handshake.
      [
        `mqtts://127.0.0.1:${brokers.mqtt}?topic=t`,
        { tls: { ca: authority.ca } },
        /rediss|mqtts|certificate|closed|ECONNRESET|handshake/i,
      ],
      // A client certificate the CA did not sign.
      [
        `rediss://127.0.0.1:${brokers.redis}/0?stream=s`,
        { tls: { ca: authority.ca, client_certificate: authority.stranger.cert, client_key: authority.stranger.key } },
        /certificate|closed|ECONNRESET|alert/i,
      ],
      // NATS requiring TLS, reached without the webhook's client TLS.
      [`nats://127.0.0.1:${brokers.nats}?subject=s`, null, /certificate|tls|TLS/],
    ] as const;
    for (const [url, credentials, reason] of cases) {
      const hook = await createHook(url, credentials);
      await app.request('POST', `/api/webhooks/${hook.id}/test`, { token: owner, body: { event: 'call.started' } });
      const error = await firstAttemptError(app, hook.id);
      assert.match(error, reason, `${url}: ${error}`);
      assert.ok(error.startsWith(`${new URL(url).protocol}//127.0.0.1:`), error);
      const [delivery] = await app.sql('SELECT status FROM webhook_deliveries WHERE webhook_id = $1', [hook.id]);
      assert.notEqual(delivery.status, 'succeeded');
    }
  });

  it('takes client TLS for https and brokers over TLS only, and OAuth2 for http(s) only, naming the field', async () => {
    const oauth2 = { token_url: 'https://auth.example.com/token', client_id: 'a', client_secret: 'b' };
    for (const [url, credentials, field, message] of [
      [
        'amqp://guest:guest@127.0.0.1:5672/%2F?exchange=amq.direct',
        { tls: { ca: 'x' } },
        'credentials.tls',
        'TLS credentials need an https, amqps, rediss, mqtts or nats url.',
      ],
      [
        'redis://127.0.0.1:6379/0?stream=s',
        { tls: { ca: 'x' } },
        'credentials.tls',
        'TLS credentials need an https, amqps, rediss, mqtts or nats url.',
      ],
      [
        `amqps://guest:guest@127.0.0.1:${brokers.amqp}/%2F?exchange=amq.direct`,
        { oauth2 },
        'credentials.oauth2',
        'OAuth2 credentials need an http or https url; a broker takes its user and password in the url.',
      ],
    ] as const) {
      const before = await app.sql('SELECT count(*)::int AS n FROM webhooks');
      const res = await app.request('POST', '/api/webhooks', {
        token: owner,
        body: { title: 'Refused', url, events: ['call.started'], credentials },
      });
      assert.equal(res.status, 422, res.text);
      const errors = res.body.errors as Record<string, string[]>;
      assert.ok(errors[field]?.includes(message), JSON.stringify(errors));
      assert.deepEqual(await app.sql('SELECT count(*)::int AS n FROM webhooks'), before);
    }
  });
});
