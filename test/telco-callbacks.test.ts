import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { playScenario } from '../src/telco/scenarios.js';
import { SIGNATURE_HEADER, telcoSignature } from '../src/telco/signature.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually, Receiver, sleep } from './helpers/receiver.js';
import { postCallback } from './helpers/callbacks.js';

// The provider's voice status callbacks, posted over HTTP as the provider
// does (form-encoded, signed with the account's auth token): each call
// becomes a record the AI dashboard lists, and call events reach a real
// receiver, signed, once each, whatever the order or repetition.

const PATH = '/api/telco/voice/status';
let app: TestApp;
let receiver: Receiver;
let token: string;
let account: { sid: string; authToken: string };
let ours: string;
let agentId: number;
let hook: { id: number; secret: string };

const callSid = () => `CA${randomBytes(16).toString('hex')}`;

async function post(
  params: Record<string, string>,
  options: { authToken?: string; signature?: string; contentType?: string; body?: string; bearer?: string } = {},
) {
  const url = `${app.url}${PATH}`;
  const signature = options.signature ?? telcoSignature(url, params, options.authToken ?? account.authToken);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': options.contentType ?? 'application/x-www-form-urlencoded',
      [SIGNATURE_HEADER]: signature,
      ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
    },
    body: options.body ?? new URLSearchParams(params).toString(),
  });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
}

const callParams = (sid: string, status: string, extra: Record<string, string> = {}) => ({
  AccountSid: account.sid,
  CallSid: sid,
  From: '+14155550123',
  To: ours,
  Direction: 'inbound',
  CallStatus: status,
  ...extra,
});

const eventsFor = async (callId: number) =>
  (
    await app.sql<{ event: string; n: number }>(
      'SELECT event, count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND payload::jsonb -> ' +
        "'data' ->> 'call_id' = $2 GROUP BY event ORDER BY event",
      [hook.id, String(callId)],
    )
  ).map((r) => `${r.event} x${r.n}`);

const callOf = async (sid: string) => (await app.sql('SELECT * FROM calls WHERE provider_call_id = $1', [sid]))[0];

before(async () => {
  app = await startTestApp();
  receiver = await new Receiver().start();
  token = await app.login('owner@acme.test');
  const { companyId, ...acme } = await app.providerAccount();
  account = acme;
  const [number] = await app.sql('SELECT id, phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1', [
    companyId,
  ]);
  const [agent] = await app.sql('SELECT id FROM agents WHERE company_id = $1 AND active ORDER BY id LIMIT 1', [
    companyId,
  ]);
  await app.sql('UPDATE phone_numbers SET chatbot_agent_id = $1 WHERE id = $2', [agent.id, number.id]);
  ours = number.phone_no;
  agentId = agent.id;
  const created = await app.graphql(
    'mutation ($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } secret } }',
    {
      input: {
        title: 'Calls',
        url: `${receiver.url}/calls`,
        events: [
          'call_started',
          'call_answered',
          'call_transferred',
          'call_ended',
          'appointment_scheduled',
          'call_analyzed',
        ],
        listSelection: 'Contact',
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

describe('voice status callbacks', () => {
  it('a call from initiated to completed: one record, on the dashboard, and started, answered, ended at the receiver, signed', async () => {
    const sid = callSid();
    for (const status of ['initiated', 'ringing', 'in-progress'])
      assert.equal((await post(callParams(sid, status))).status, 204);
    const appointment = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const done = await post(
      callParams(sid, 'completed', {
        CallDuration: '184',
        RecordingUrl: 'https://recordings.example/RE1.mp3',
        Transcription: 'Agent: Hello. Caller: Tuesday works.',
        Sentiment: 'positive',
        Disposition: 'Appointment booked',
        Tags: 'appointment, new-patient',
        AppointmentAt: appointment,
      }),
    );
    assert.equal(done.status, 204, done.text);

    const call = await callOf(sid);
    assert.equal(call.status, 'completed');
    assert.equal(call.duration_seconds, 184);
    assert.equal(call.agent_id, agentId);
    assert.equal(call.direction, 'inbound');
    assert.ok(call.answered_at && call.ended_at);
    assert.equal(new Date(call.appointment_at).toISOString(), appointment);

    const received = await receiver.waitFor(4, 10_000, (r) => r.body.includes(`"call_id":"${call.id}"`));
    const bodies = received.map((r) => {
      assert.ok(new StandardWebhook(hook.secret).verify(r.body, r.headers as Record<string, string>));
      return JSON.parse(r.body);
    });
    assert.deepEqual(bodies.map((b) => b.event).sort(), [
      'appointment.scheduled',
      'call.answered',
      'call.ended',
      'call.started',
    ]);
    assert.deepEqual(bodies.find((b) => b.event === 'appointment.scheduled').data, {
      call_id: String(call.id),
      appointment_at: appointment,
      agent_id: String(agentId),
      contact: { phone_number: '+14155550123', first_name: null, last_name: null, email: null },
    });
    const ended = bodies.find((b) => b.event === 'call.ended');
    assert.deepEqual(ended.data, {
      call_id: String(call.id),
      agent_id: String(agentId),
      caller_number: '+14155550123',
      called_number: ours,
      call_direction: 'inbound',
      call_duration: 184,
      call_status: 'completed',
      recording_url: 'https://recordings.example/RE1.mp3',
      transcription: 'Agent: Hello. Caller: Tuesday works.',
      sentiment: 'positive',
      disposition: 'Appointment booked',
      tags: ['appointment', 'new-patient'],
      custom_fields: {},
      contact: { phone_number: '+14155550123', first_name: null, last_name: null, email: null },
    });

    // The dashboard lists it like the seeded calls.
    const list = await app.request('GET', '/api/ai/dashboard/appointments?date_range=Today&per_page=100', { token });
    assert.equal(list.status, 200);
    assert.ok(
      list.body.data.records.some((r: { id: number | string }) => String(r.id) === String(call.id)),
      'the call is on the dashboard',
    );
  });

  it('repeated, late and concurrent callbacks change nothing and record no event twice', async () => {
    const sid = callSid();
    for (const status of ['initiated', 'in-progress']) await post(callParams(sid, status));
    // Ten completed callbacks at once (the provider retries), then a late ringing and in-progress.
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post(callParams(sid, 'completed', { CallDuration: '60' }))),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(10).fill(204),
    );
    assert.equal((await post(callParams(sid, 'ringing'))).status, 204);
    assert.equal((await post(callParams(sid, 'in-progress'))).status, 204);
    assert.equal((await post(callParams(sid, 'initiated'))).status, 204);
    const call = await callOf(sid);
    assert.equal(call.status, 'completed', 'a late ringing never moves a completed call back');
    assert.equal((await app.sql('SELECT count(*)::int AS n FROM calls WHERE provider_call_id = $1', [sid]))[0].n, 1);
    assert.deepEqual(await eventsFor(call.id), ['call.answered x1', 'call.ended x1', 'call.started x1']);
  });

  it('ten concurrent repeats of every callback of a call yield each event once, each delivered once under its own webhook-id', async () => {
    const sid = callSid();
    const steps: Array<[string, Record<string, string>]> = [
      [PATH, callParams(sid, 'initiated')],
      [PATH, callParams(sid, 'ringing')],
      [PATH, callParams(sid, 'in-progress')],
      [PATH, callParams(sid, 'in-progress', { TransferredTo: '+12125550142' })],
      [
        PATH,
        callParams(sid, 'completed', {
          CallDuration: '75',
          AppointmentAt: '2030-05-01T15:00:00Z',
          Sentiment: 'positive',
        }),
      ],
      [
        '/api/telco/voice/analysis',
        {
          AccountSid: account.sid,
          CallSid: sid,
          From: '+14155550123',
          To: ours,
          Direction: 'inbound',
          Summary: 'Booked',
          Successful: 'true',
        },
      ],
    ];
    for (const [path, params] of steps) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, async () => (await postCallback(app.url, account.authToken, path, params)).status),
      );
      assert.deepEqual(answers, Array(10).fill(204), `${path} ${params.CallStatus ?? ''}`);
    }
    const call = await callOf(sid);
    const expected = [
      'appointment.scheduled',
      'call.analyzed',
      'call.answered',
      'call.ended',
      'call.started',
      'call.transferred',
    ];
    assert.deepEqual(
      await eventsFor(call.id),
      expected.map((e) => `${e} x1`),
    );
    const arrived = await receiver.waitFor(6, 10_000, (r) => JSON.parse(r.body).data.call_id === String(call.id));
    await sleep(300);
    const mine = receiver.received.filter((r) => JSON.parse(r.body).data.call_id === String(call.id));
    assert.equal(mine.length, arrived.length, 'nothing more arrived');
    assert.deepEqual(mine.map((r) => JSON.parse(r.body).event).sort(), expected);
    assert.equal(new Set(mine.map((r) => r.headers['webhook-id'])).size, 6, 'a webhook-id per event');
    for (const r of mine)
      assert.ok(new StandardWebhook(hook.secret).verify(r.body, r.headers as Record<string, string>));
  });

  it('a call first heard of when it is over records started, answered and ended; one never answered has no answered', async () => {
    const answered = callSid();
    await post(
      callParams(answered, 'completed', {
        CallDuration: '42',
        Direction: 'outbound-api',
        From: ours,
        To: '+14155550999',
      }),
    );
    const first = await callOf(answered);
    assert.equal(first.direction, 'outbound');
    assert.deepEqual(await eventsFor(first.id), ['call.answered x1', 'call.ended x1', 'call.started x1']);
    const missed = callSid();
    await post(callParams(missed, 'ringing'));
    await post(callParams(missed, 'no-answer'));
    const second = await callOf(missed);
    assert.equal(second.status, 'no-answer');
    assert.deepEqual(await eventsFor(second.id), ['call.ended x1', 'call.started x1']);
  });

  it('a transfer is recorded once per destination', async () => {
    const sid = callSid();
    await post(callParams(sid, 'in-progress'));
    await post(callParams(sid, 'in-progress', { TransferredTo: '+12125550142' }));
    await post(callParams(sid, 'in-progress', { TransferredTo: '+12125550142' }));
    const call = await callOf(sid);
    assert.equal(call.transferred_to, '+12125550142');
    assert.deepEqual(await eventsFor(call.id), ['call.answered x1', 'call.started x1', 'call.transferred x1']);
    const [transfer] = await receiver.waitFor(
      1,
      10_000,
      (r) => r.body.includes('"event":"call.transferred"') && r.body.includes(`"call_id":"${call.id}"`),
    );
    assert.equal(JSON.parse(transfer.body).data.transferred_to, '+12125550142');
  });

  it("the simulator's scenarios play over HTTP with real signatures: inbound with a booking, transfer, missed", async () => {
    const options = { url: app.url, accountSid: account.sid, authToken: account.authToken, number: ours };
    const inbound = await callOf(await playScenario('inbound-call', { ...options, book: true }));
    assert.equal(inbound.status, 'completed');
    assert.ok(inbound.appointment_at, 'the booking is on the call');
    assert.deepEqual(await eventsFor(inbound.id), [
      'appointment.scheduled x1',
      'call.analyzed x1',
      'call.answered x1',
      'call.ended x1',
      'call.started x1',
    ]);
    const [scheduled] = await receiver.waitFor(
      1,
      10_000,
      (r) => r.body.includes('"event":"appointment.scheduled"') && r.body.includes(`"call_id":"${inbound.id}"`),
    );
    assert.equal(JSON.parse(scheduled.body).data.appointment_at, new Date(inbound.appointment_at).toISOString());
    const transfer = await callOf(await playScenario('transfer', options));
    assert.deepEqual(await eventsFor(transfer.id), [
      'call.answered x1',
      'call.ended x1',
      'call.started x1',
      'call.transferred x1',
    ]);
    const missed = await callOf(await playScenario('missed-call', options));
    assert.deepEqual(await eventsFor(missed.id), ['call.ended x1', 'call.started x1']);
    await assert.rejects(playScenario('inbound-call', { ...options, authToken: 'wrong' }), /answered 403/);
  });

  it('the simulator command finds the service by PORT, and names the URL and the cause when it cannot', async () => {
    const { spawn } = await import('node:child_process');
    const run = (args: string[], env: Record<string, string>) =>
      new Promise<{ status: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, ['dist/src/telco/simulate.js', ...args], {
          env: { PATH: process.env.PATH ?? '', ...env },
        });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.on('exit', (status) => resolve({ status, out }));
      });
    const port = new URL(app.url).port;
    const played = await run(['missed-call', '--delay', '0'], { PORT: port });
    assert.equal(played.status, 0, played.out);
    const sid = /call (\S+) on/.exec(played.out)![1];
    assert.equal((await callOf(sid)).status, 'no-answer');
    const away = await run(['missed-call'], { PORT: '1' });
    assert.equal(away.status, 1);
    assert.match(away.out, /^simulate: cannot reach the service at http:\/\/localhost:1: /m);
    const bad = await run(['missed-call', '--url', 'localhost:3000'], {});
    assert.equal(bad.status, 64);
    assert.match(bad.out, /--url must be an http\(s\) URL of the service \(got "localhost:3000"\)/);
  });

  it("a known contact's fields ride on the events, cut to each webhook's selection; an unknown caller becomes a contact", async () => {
    const created = await app.request('POST', '/api/contacts', {
      token,
      body: {
        phone_number: '+14155550142',
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'ada@example.com',
        city: 'London',
        custom_fields: { plan: 'gold' },
      },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.message, 'Contact created successfully.');
    const sid = callSid();
    await post(callParams(sid, 'initiated', { From: '+14155550142' }));
    const call = await callOf(sid);
    assert.equal(call.contact_id, created.body.data.id);
    const [started] = await receiver.waitFor(
      1,
      10_000,
      (r) => r.body.includes('"event":"call.started"') && r.body.includes(`"call_id":"${call.id}"`),
    );
    // The webhook selected Contact: number, names and email, nothing else.
    assert.deepEqual(JSON.parse(started.body).data.contact, {
      phone_number: '+14155550142',
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
    });

    const stranger = callSid();
    await post(callParams(stranger, 'initiated', { From: '+14155550143' }));
    const list = await app.request('GET', '/api/contacts?search=555014', { token });
    assert.deepEqual(list.body.data.records.map((c: { phone_number: string }) => c.phone_number).sort(), [
      '+14155550142',
      '+14155550143',
    ]);
    const gql = await app.graphql(
      '{ contacts(search: "Lovelace") { records { phoneNumber firstName customFields } pagination { total } } }',
      {},
      token,
    );
    assert.deepEqual(gql.body.data.contacts.records, [
      { phoneNumber: '+14155550142', firstName: 'Ada', customFields: { plan: 'gold' } },
    ]);

    const before = await app.fingerprint();
    const duplicate = await app.request('POST', '/api/contacts', { token, body: { phone_number: '+14155550142' } });
    assert.equal(duplicate.status, 422);
    assert.deepEqual(duplicate.body.errors, { phone_number: ['The phone number has already been taken.'] });
    const bad = await app.request('POST', '/api/contacts', {
      token,
      body: { phone_number: '0041 555', email: 'not-an-email', custom_fields: { 'bad key': 1, nested: { no: true } } },
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(Object.keys(bad.body.errors).sort(), [
      'custom_fields.bad key',
      'custom_fields.nested',
      'email',
      'phone_number',
    ]);
    assert.equal(await app.fingerprint(), before);
  });

  it("a callback for another company's number, signed by this account, cannot touch the other company", async () => {
    const [beta] = await app.sql(
      "SELECT p.phone_no FROM phone_numbers p JOIN companies c ON c.id = p.company_id WHERE c.name = 'Beta Clinic' ORDER BY p.id LIMIT 1",
    );
    const sid = callSid();
    assert.equal((await post(callParams(sid, 'initiated', { To: beta.phone_no }))).status, 204);
    const [call] = await app.sql(
      'SELECT c.name FROM calls k JOIN companies c ON c.id = k.company_id WHERE k.provider_call_id = $1',
      [sid],
    );
    assert.equal(call.name, 'Acme Agency', 'the call belongs to the account that signed it');
    assert.equal(
      (
        await app.sql(
          "SELECT count(*)::int AS n FROM contacts t JOIN companies c ON c.id = t.company_id WHERE c.name = 'Beta Clinic'",
        )
      )[0].n,
      0,
    );
  });

  it('refuses what the provider did not sign, and changes nothing', async () => {
    const before = await app.fingerprint();
    const sid = callSid();
    const params = callParams(sid, 'initiated');
    const refused = [
      await post(params, { signature: '' }),
      await post(params, { signature: 'bm90IGEgc2lnbmF0dXJl' }),
      await post(params, { authToken: 'f'.repeat(32) }), // another token
      await post({ ...params, AccountSid: `AC${'0'.repeat(32)}` }), // an account nobody has
      await post(params, {
        signature: telcoSignature(`${app.url}${PATH}`, { ...params, CallStatus: 'completed' }, account.authToken),
      }), // signed other values
      await post(params, { signature: '', bearer: token }), // a user's token is no signature
    ];
    assert.deepEqual(
      refused.map((r) => r.status),
      [403, 403, 403, 403, 403, 403],
    );
    assert.deepEqual(refused[0].body, { success: false, message: 'The callback signature is missing or wrong.' });
    assert.equal(await app.fingerprint(), before);
  });

  it('keeps the JSON rule everywhere else, and answers malformed callbacks with 4xx', async () => {
    const json = await post(callParams(callSid(), 'initiated'), {
      contentType: 'application/json',
      body: JSON.stringify(callParams(callSid(), 'initiated')),
    });
    assert.equal(json.status, 400);
    const get = await fetch(`${app.url}${PATH}`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const bad = await post(callParams('CA-not-a-sid', 'sideways'));
    assert.equal(bad.status, 422);
    assert.deepEqual(Object.keys(bad.body.errors).sort(), ['CallSid', 'CallStatus']);
    // A form body on any other /api route is still refused.
    const roles = await fetch(`${app.url}/api/roles`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'title=Form',
    });
    assert.equal(roles.status, 400);
    await sleep(50);
    await eventually(async () =>
      (await app.sql("SELECT count(*)::int AS n FROM roles WHERE title = 'Form'"))[0].n === 0 ? true : undefined,
    );
  });
});
