import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { refusedAddress, resolveDestination, urlProblem } from '../src/webhooks/config/destination.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually, Receiver } from './helpers/receiver.js';

// Where webhooks may not send (docs/design.md §5, "Safety"): checked at save
// time on the URL and at send time on the address connected to.

const REFUSED = [
  '127.0.0.1',
  '127.1.2.3',
  '10.0.0.1',
  '172.16.0.1',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '100.100.100.200',
  '0.0.0.0',
  '224.0.0.1',
  '255.255.255.255',
  '192.0.2.1',
  '198.51.100.1',
  '203.0.113.1',
  '198.18.0.1',
  '240.0.0.1',
  '::1',
  '::',
  'fe80::1',
  'fc00::1',
  'fd00:ec2::254',
  'ff02::1',
  '2001:db8::1',
  '::ffff:127.0.0.1',
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  '64:ff9b::7f00:1',
  '64:ff9b::a00:1',
  '2002:7f00:1::1',
  '2001::1',
  // Every IPv6 form that embeds an IPv4 address: compatible, mapped, NAT64 (both prefixes), 6to4, Teredo, each around loopback, metadata and a public address.
  '::127.0.0.1',
  '::a9fe:a9fe',
  '::8.8.8.8',
  '::ffff:a9fe:a9fe',
  '64:ff9b::a9fe:a9fe',
  '64:ff9b::808:808',
  '64:ff9b:1::7f00:1',
  '64:ff9b:1::808:808',
  '2002:a9fe:a9fe::1',
  '2002:808:808::1',
  '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  '2001::808:808',
];
const PUBLIC = ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];

describe('address ranges', () => {
  it('refuses every private, loopback, link-local, CGNAT, unique-local, multicast, unspecified, documentation, benchmark, mapped and NAT64 address', () => {
    for (const address of REFUSED) assert.ok(refusedAddress(address), `${address} was allowed`);
    for (const address of PUBLIC) assert.equal(refusedAddress(address), undefined, address);
  });

  it('refuses every refused address at connect time too, as a literal host', async () => {
    for (const address of REFUSED)
      await assert.rejects(
        resolveDestination(address.includes(':') ? `[${address}]` : address, 'public'),
        /refused destination/,
        address,
      );
    assert.equal((await resolveDestination('[::ffff:8.8.8.8]', 'public')).address, '::ffff:8.8.8.8');
  });

  it('refuses literal private hosts in every spelling at save time', () => {
    const urls = [
      'http://127.0.0.1/hook',
      'http://localhost:8080/hook',
      'http://LOCALHOST/hook',
      'http://api.localhost/hook',
      'http://[::1]/hook',
      'http://2130706433/hook',
      'http://0x7f.1/hook',
      'http://017700000001/hook',
      'http://127.1/hook',
      'http://0/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:7f00:1]/hook',
      'http://[fd00:ec2::254]/hook',
      'https://10.1.2.3/hook',
      'http://[64:ff9b::7f00:1]/hook',
      'http://100.100.100.200/hook',
      'http://[::127.0.0.1]:8080/',
      'http://[::a9fe:a9fe]/',
      // Every refused IPv6 form, as a URL's host.
      ...REFUSED.filter((address) => address.includes(':')).map((address) => `http://[${address}]/hook`),
    ];
    for (const url of urls) assert.ok(urlProblem(url, 'public'), `${url} was allowed`);
    assert.equal(urlProblem('https://hooks.example.com/in', 'public'), undefined);
    assert.match(
      urlProblem('http://127.0.0.1:9000/hook', 'public')!,
      /WEBHOOK_ALLOW_PRIVATE=true allows them/,
      'the message names the setting',
    );
    assert.match(urlProblem('http://localhost:9000/hook', 'public')!, /WEBHOOK_ALLOW_PRIVATE=true/);
    assert.equal(
      urlProblem('http://127.0.0.1:9000/hook', 'private'),
      undefined,
      'WEBHOOK_ALLOW_PRIVATE lifts the check',
    );
    assert.equal(urlProblem('http://10.1.2.3/hook', 'private'), undefined);
    assert.ok(urlProblem('ftp://x/', 'private'), 'the scheme is checked even then');
    // A broker's host obeys the same rules.
    for (const url of [
      'amqp://guest:guest@10.0.0.5:5672/%2F?exchange=calls',
      'nats://127.0.0.1:4222?subject=calls',
      'redis://169.254.169.254:6379/0?stream=calls',
      'mqtts://[::1]:8883?topic=calls',
    ])
      assert.match(urlProblem(url, 'public') ?? '', /must not point to/, `${url} was allowed`);
    assert.equal(urlProblem('amqps://user:pw@broker.example.com/prod?exchange=calls', 'public'), undefined);
  });

  it('lets development reach loopback receivers and no other private range', async () => {
    for (const url of [
      'http://127.0.0.1:4000/hooks',
      'http://localhost:4000/',
      'http://[::1]:4000/',
      'http://127.1/',
      'http://2130706433/',
      'http://127.9.9.9/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      assert.equal(urlProblem(url, 'loopback'), undefined, url);
    }
    for (const url of [
      'http://10.1.2.3/hook',
      'http://192.168.1.10/',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00:ec2::254]/',
      'http://100.100.100.200/',
      'http://0/',
      'http://[::127.0.0.1]/',
    ]) {
      assert.match(
        urlProblem(url, 'loopback') ?? `${url} was allowed`,
        /only loopback is allowed in development; WEBHOOK_ALLOW_PRIVATE=true allows them/,
        url,
      );
    }
    assert.equal((await resolveDestination('127.0.0.1', 'loopback')).address, '127.0.0.1');
    assert.equal((await resolveDestination('[::1]', 'loopback')).address, '::1');
    assert.match((await resolveDestination('localhost', 'loopback')).address, /^(127\.|::1$)/);
    await assert.rejects(
      resolveDestination('10.0.0.1', 'loopback'),
      /refused destination: 10\.0\.0\.1 resolves to 10\.0\.0\.1 is a private address/,
    );
    await assert.rejects(resolveDestination('169.254.169.254', 'loopback'), /refused destination/);
  });
});

describe('a service that may not send to private addresses', () => {
  let app: TestApp;
  let owner: string;
  let receiver: Receiver;

  before(async () => {
    app = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: 'false', WEBHOOK_RETRY_DELAYS: '100ms,100ms,100ms,100ms' });
    owner = await app.login('owner@acme.test');
    receiver = await new Receiver().start();
  });
  after(async () => {
    await receiver.close();
    await app.close();
  });

  it('refuses a private URL at save time with 422 on url', async () => {
    const res = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: 'Inside', url: receiver.url, events: ['agent.created'] },
    });
    assert.equal(res.status, 422);
    assert.deepEqual(Object.keys(res.body.errors), ['url']);
  });

  it('refuses at send time a host name that resolves to a private address, recording why', async (t) => {
    const name = hostname();
    const resolved = await lookup(name, { all: true }).catch(() => []);
    if (resolved.length === 0 || !resolved.every((a) => refusedAddress(a.address))) {
      t.skip(`this machine's host name (${name}) does not resolve to a private address only`);
      return;
    }
    const port = new URL(receiver.url).port;
    const created = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: 'Rebinding', url: `http://${name}:${port}/hook`, events: ['agent.created'] },
    });
    assert.equal(created.status, 201, created.text);
    await app.graphql('mutation { createAgent(name: "Private target") { id } }', {}, owner);
    const [row] = await eventually(
      async () => {
        const rows = await app.sql(
          "SELECT status FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'failed'",
          [created.body.data.id],
        );
        return rows.length ? rows : undefined;
      },
      10_000,
      'the delivery to fail',
    );
    assert.equal(row.status, 'failed');
    const attempts = await app.sql(
      'SELECT a.error, a.status_code FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = $1 ORDER BY a.number',
      [created.body.data.id],
    );
    assert.equal(attempts.length, 5);
    for (const attempt of attempts) {
      assert.equal(attempt.status_code, null);
      assert.match(attempt.error, /^refused destination: .* resolves to .* (loopback|private)/);
    }
    assert.equal(receiver.received.length, 0, 'nothing reached the private address');
  });
});
