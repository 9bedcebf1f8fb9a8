import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { playSmsScenario } from '../src/telco/scenarios.js';
import { SIGNATURE_HEADER, telcoSignature } from '../src/telco/signature.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { Receiver } from './helpers/receiver.js';

// SMS end to end: sent through the API and the provider (the simulator),
// its fate reported by signed status callbacks, replies received; each step
// a signed webhook at a real receiver, once.

let app: TestApp;
let receiver: Receiver;
let token: string;
let account: { sid: string; authToken: string };
let hook: { id: number; secret: string };

const eventsOf = async (messageId: string) =>
  (
    await app.sql<{ event: string; n: number }>(
      'SELECT event, count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND payload::jsonb -> ' +
        "'data' ->> 'message_id' = $2 GROUP BY event ORDER BY event",
      [hook.id, messageId],
    )
  ).map((r) => `${r.event} x${r.n}`);

async function callback(path: string, params: Record<string, string>, authToken = account.authToken) {
  const url = `${app.url}${path}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      [SIGNATURE_HEADER]: telcoSignature(url, params, authToken),
    },
    body: new URLSearchParams(params).toString(),
  });
  return response.status;
}

before(async () => {
  app = await startTestApp();
  receiver = await new Receiver().start();
  token = await app.login('owner@acme.test');
  const { sid, authToken } = await app.providerAccount();
  account = { sid, authToken };
  const created = await app.graphql(
    'mutation ($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } secret } }',
    {
      input: {
        title: 'SMS',
        url: `${receiver.url}/sms`,
        events: ['sms_sent', 'sms_failed', 'sms_received', 'sms_replied'],
        listSelection: 'Basic',
      },
    },
    token,
  );
  hook = { id: created.body.data.createWebhook.webhook.id, secret: created.body.data.createWebhook.secret };
});
after(async () => {
  await receiver?.close();
  await app?.close();
});

describe('SMS', () => {
  it('sends through the provider, then sent, delivered and a reply: sms.sent, sms.received and sms.replied, once each', async () => {
    const { sent, reply } = await playSmsScenario('sms-exchange', {
      url: app.url,
      accountSid: account.sid,
      authToken: account.authToken,
      bearer: token,
      contact: '+14155550177',
    });
    const atProvider = app.running.simulator!.messages.find((m) => m.sid === sent);
    assert.ok(atProvider, 'the provider got the message');
    assert.equal(atProvider.to, '+14155550177');
    assert.match(atProvider.statusCallback, /\/api\/telco\/sms\/status$/);
    const [row] = await app.sql('SELECT status, direction FROM sms_messages WHERE provider_message_sid = $1', [sent]);
    assert.deepEqual(row, { status: 'delivered', direction: 'outbound' });
    assert.deepEqual(await eventsOf(sent), ['sms.sent x1']);
    assert.deepEqual(await eventsOf(reply!), ['sms.received x1', 'sms.replied x1']);

    const replied = (await receiver.waitFor(1, 10_000, (r) => r.body.includes('"event":"sms.replied"')))[0];
    assert.ok(new StandardWebhook(hook.secret).verify(replied.body, replied.headers as Record<string, string>));
    assert.deepEqual(JSON.parse(replied.body).data, {
      message_id: reply,
      from_number: '+14155550177',
      to_number: atProvider.from,
      body: 'Yes, Tuesday at 3 pm works.',
      in_reply_to: sent,
      contact: { phone_number: '+14155550177', first_name: null, last_name: null },
    });

    // Repeats and late reports: nothing new.
    const base = { AccountSid: account.sid, MessageSid: sent, From: atProvider.from, To: '+14155550177' };
    assert.equal(await callback('/api/telco/sms/status', { ...base, MessageStatus: 'sent' }), 204);
    assert.equal(await callback('/api/telco/sms/status', { ...base, MessageStatus: 'delivered' }), 204);
    assert.equal(
      await callback('/api/telco/sms/inbound', {
        AccountSid: account.sid,
        MessageSid: reply!,
        From: '+14155550177',
        To: atProvider.from,
        Body: 'Yes, Tuesday at 3 pm works.',
      }),
      204,
    );
    assert.deepEqual(await eventsOf(sent), ['sms.sent x1']);
    assert.deepEqual(await eventsOf(reply!), ['sms.received x1', 'sms.replied x1']);
    assert.equal(
      (await app.sql('SELECT count(*)::int AS n FROM sms_messages WHERE provider_message_sid = $1', [reply]))[0].n,
      1,
    );
  });

  it('an undelivered message is sms.failed with the provider error code', async () => {
    const { sent } = await playSmsScenario('sms-failed', {
      url: app.url,
      accountSid: account.sid,
      authToken: account.authToken,
      bearer: token,
      contact: '+14155550188',
    });
    assert.deepEqual(await eventsOf(sent), ['sms.failed x1']);
    const [failed] = await receiver.waitFor(1, 10_000, (r) => r.body.includes('"event":"sms.failed"'));
    const data = JSON.parse(failed.body).data;
    assert.equal(data.status, 'undelivered');
    assert.equal(data.error_code, '30003');
  });

  it('a message from a number the company never texted is received, not a reply', async () => {
    const [number] = await app.sql(
      "SELECT phone_no FROM phone_numbers p JOIN companies c ON c.id = p.company_id WHERE c.name = 'Acme Agency' ORDER BY p.id LIMIT 1",
    );
    const sid = `SM${randomBytes(16).toString('hex')}`;
    assert.equal(
      await callback('/api/telco/sms/inbound', {
        AccountSid: account.sid,
        MessageSid: sid,
        From: '+14155550999',
        To: number.phone_no,
        Body: 'Hello?',
      }),
      204,
    );
    assert.deepEqual(await eventsOf(sid), ['sms.received x1']);
    // Not signed by the account: refused, nothing stored.
    const forged = `SM${randomBytes(16).toString('hex')}`;
    assert.equal(
      await callback(
        '/api/telco/sms/inbound',
        { AccountSid: account.sid, MessageSid: forged, From: '+14155550999', To: number.phone_no, Body: 'Hi' },
        'not-the-token',
      ),
      403,
    );
    assert.equal(
      (await app.sql('SELECT count(*)::int AS n FROM sms_messages WHERE provider_message_sid = $1', [forged]))[0].n,
      0,
    );
  });

  it('the log over REST and GraphQL, and send errors named by field', async () => {
    const rest = await app.request('GET', '/api/sms?per_page=50', { token });
    assert.equal(rest.status, 200);
    assert.ok(rest.body.data.records.some((m: { direction: string }) => m.direction === 'inbound'));
    assert.ok(rest.body.data.records.some((m: { direction: string }) => m.direction === 'outbound'));
    const gql = await app.graphql(
      '{ smsMessages(direction: inbound, perPage: 50) { records { id direction } pagination { total } } }',
      {},
      token,
    );
    assert.equal(
      gql.body.data.smsMessages.pagination.total,
      rest.body.data.records.filter((m: { direction: string }) => m.direction === 'inbound').length,
    );
    const before = await app.fingerprint();
    const bad = await app.request('POST', '/api/sms', { token, body: { to: '555-1234', body: 'Hi' } });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.errors, { to: ['The to field must be an E.164 number, such as +14155550100.'] });
    const empty = await app.request('POST', '/api/sms', { token, body: { to: '+14155550100', body: '' } });
    assert.equal(empty.status, 422);
    assert.deepEqual(Object.keys(empty.body.errors), ['body']);
    const notOurs = await app.request('POST', '/api/sms', {
      token,
      body: { to: '+14155550100', body: 'Hi', from: '+19995550100' },
    });
    assert.equal(notOurs.status, 422);
    assert.deepEqual(Object.keys(notOurs.body.errors), ['from']);
    assert.equal(await app.fingerprint(), before);
    const auditor = await app.userWith(['view-sms'], 'sms viewer');
    assert.equal(
      (await app.request('POST', '/api/sms', { token: auditor, body: { to: '+14155550100', body: 'Hi' } })).status,
      403,
    );
    assert.equal((await app.request('GET', '/api/sms', { token: auditor })).status, 200);
  });
});
