import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { toBase64Id } from '../src/kernel/ids.js';
import { playScenario } from '../src/telco/scenarios.js';
import { postCallback } from './helpers/callbacks.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { Receiver } from './helpers/receiver.js';

// call.analyzed, caused by the simulator's signed analysis callback and by the
// API: delivered to a real receiver (verified with standardwebhooks), stored
// on the call, recorded once however often the same analysis arrives (ten
// repeats at once), again when it changes; the API's refusals change nothing.

let app: TestApp;
let owner: string;
let receiver: Receiver;
let hook: { id: number; secret: string };
let account: { sid: string; authToken: string; companyId: number };
let ours: string;

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  receiver = await new Receiver().start();
  hook = (
    await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: 'Analyses', url: receiver.url, events: ['call.analyzed'], list_selection: 'All' },
    })
  ).body.data;
  account = await app.providerAccount();
  [{ phone_no: ours }] = await app.sql('SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1', [
    account.companyId,
  ]);
});
after(async () => {
  await receiver.close();
  await app.close();
});

const callback = async (path: string, params: Record<string, string>) =>
  (await postCallback(app.url, account.authToken, path, params)).status;
const analysedEvents = async (callId: number) =>
  (
    await app.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM events WHERE type = 'call.analyzed' AND $1 = ANY(subjects)",
      [`call:${callId}`],
    )
  )[0].n;
const callOf = async (sid: string) =>
  (
    await app.sql(
      'SELECT id, summary, successful, custom_analysis, sentiment, analyzed_at FROM calls WHERE provider_call_id = $1',
      [sid],
    )
  )[0];
const delivered = (callId: number) =>
  receiver.received.filter((r) => JSON.parse(r.body).data.call_id === String(callId));
const analysis = (sid: string, extra: Record<string, string> = {}) => ({
  AccountSid: account.sid,
  CallSid: sid,
  From: '+14155550177',
  To: ours,
  Direction: 'inbound',
  ...extra,
});

describe('call.analyzed', () => {
  it("the simulator's call ends with the agent's analysis: stored, delivered signed, on the call's details", async () => {
    const sid = await playScenario('inbound-call', {
      url: app.url,
      accountSid: account.sid,
      authToken: account.authToken,
      number: ours,
      contact: '+14155550166',
      book: true,
    });
    const call = await callOf(sid);
    const [request] = await receiver.waitFor(1, 10_000, (r) => JSON.parse(r.body).data.call_id === String(call.id));
    assert.ok(new StandardWebhook(hook.secret).verify(request.body, request.headers as Record<string, string>));
    const { event, data } = JSON.parse(request.body);
    assert.equal(event, 'call.analyzed');
    assert.deepEqual(
      { ...data, analyzed_at: undefined, contact: undefined },
      {
        call_id: String(call.id),
        agent_id: data.agent_id,
        caller_number: '+14155550166',
        called_number: ours,
        call_direction: 'inbound',
        summary: 'The caller asked to come in next week and booked an appointment.',
        sentiment: 'positive',
        disposition: 'Appointment booked',
        successful: true,
        custom_analysis: { new_patient: true, insurance_provider: 'Delta Dental' },
        recording_url: 'https://recordings.example/demo.mp3',
        analyzed_at: undefined,
        contact: undefined,
      },
    );
    assert.equal(data.contact.phone_number, '+14155550166');
    assert.equal(call.successful, true);
    const details = await app.graphql(
      'query($id: ID!) { callDetails(id: $id) { summary successful customAnalysis analyzedAt } }',
      { id: String(call.id) },
      owner,
    );
    assert.equal(details.body.data.callDetails.summary, data.summary);
    assert.deepEqual(details.body.data.callDetails.customAnalysis, {
      new_patient: true,
      insurance_provider: 'Delta Dental',
    });
    assert.equal(details.body.data.callDetails.analyzedAt, data.analyzed_at);
  });

  it('ten repeats of the same analysis callback at once record one event; a changed analysis records another', async () => {
    const sid = await playScenario('missed-call', {
      url: app.url,
      accountSid: account.sid,
      authToken: account.authToken,
      number: ours,
      contact: '+14155550177',
    });
    const params = analysis(sid, {
      Summary: 'Nobody answered; a voicemail was left.',
      Successful: 'false',
      CustomAnalysis: '{"voicemail":true,"callback_requested":false}',
    });
    const statuses = await Promise.all(Array.from({ length: 10 }, () => callback('/api/telco/voice/analysis', params)));
    assert.deepEqual(statuses, Array(10).fill(204));
    const call = await callOf(sid);
    await receiver.waitFor(1, 10_000, (r) => JSON.parse(r.body).data.call_id === String(call.id));
    assert.equal(await analysedEvents(call.id), 1);
    // The same fields in another order are the same analysis.
    assert.equal(
      await callback('/api/telco/voice/analysis', {
        ...params,
        CustomAnalysis: '{"callback_requested":false,"voicemail":true}',
      }),
      204,
    );
    assert.equal(await analysedEvents(call.id), 1);
    assert.equal(await callback('/api/telco/voice/analysis', { ...params, Successful: 'true' }), 204);
    await receiver.waitFor(2, 10_000, (r) => JSON.parse(r.body).data.call_id === String(call.id));
    assert.equal(await analysedEvents(call.id), 2);
    assert.deepEqual(
      delivered(call.id).map((r) => JSON.parse(r.body).data.successful),
      [false, true],
    );
    // A call the account does not know is left alone.
    assert.equal(
      await callback(
        '/api/telco/voice/analysis',
        analysis(`CA${randomBytes(16).toString('hex')}`, { Summary: 'Who?' }),
      ),
      204,
    );
  });

  it('PUT /api/ai/dashboard/calls/{id}/analysis records it by each id form; the same again records nothing', async () => {
    const sid = await playScenario('outbound-call', {
      url: app.url,
      accountSid: account.sid,
      authToken: account.authToken,
      number: ours,
      contact: '+14155550188',
    });
    const { id } = await callOf(sid);
    const forms = [String(id), toBase64Id(id), app.running.services.ids.encrypt('call', id)];
    for (const [i, form] of forms.entries()) {
      const res = await app.request('PUT', `/api/ai/dashboard/calls/${encodeURIComponent(form)}/analysis`, {
        token: owner,
        body: { summary: `Reviewed ${i}`, successful: true, custom_analysis: { score: i, reviewer: 'qa' } },
      });
      assert.equal(res.status, 200, `${form}: ${res.text}`);
      assert.equal(res.body.message, 'Call analysis recorded.');
      assert.deepEqual(
        { ...res.body.data, analyzed_at: undefined },
        {
          id,
          sentiment: 'positive',
          disposition: 'Information given',
          recording_url: null,
          summary: `Reviewed ${i}`,
          successful: true,
          custom_analysis: { score: i, reviewer: 'qa' },
          analyzed_at: undefined,
        },
      );
    }
    assert.equal(await analysedEvents(id), 3, 'three changes');
    const again = await app.request('PUT', `/api/ai/dashboard/calls/${id}/analysis`, {
      token: owner,
      body: { summary: 'Reviewed 2' },
    });
    assert.equal(again.status, 200);
    assert.equal(await analysedEvents(id), 3, 'the same analysis is not news');
    const gql = await app.graphql(
      'mutation($id: ID!) { analyzeCall(id: $id, analysis: { sentiment: negative }) { id sentiment summary } }',
      { id: String(id) },
      owner,
    );
    assert.deepEqual(gql.body.data.analyzeCall, { id, sentiment: 'negative', summary: 'Reviewed 2' });
    assert.equal(await analysedEvents(id), 4);
  });

  it(
    "refuses bad fields (422), an in-progress call (409), another company's or a malformed id (404) and " +
      'a user without analyze-calls (403), changing nothing',
    async () => {
      const sid = `CA${randomBytes(16).toString('hex')}`;
      for (const status of ['initiated', 'in-progress'])
        assert.equal(
          await callback('/api/telco/voice/status', {
            AccountSid: account.sid,
            CallSid: sid,
            From: '+14155550199',
            To: ours,
            Direction: 'inbound',
            CallStatus: status,
          }),
          204,
        );
      const { id: live } = await callOf(sid);
      const [{ id: theirs }] = await app.sql(
        "SELECT c.id FROM calls c JOIN companies co ON co.id = c.company_id WHERE co.name <> 'Acme Agency' ORDER BY c.id LIMIT 1",
      );
      const [{ id: ended }] = await app.sql(
        "SELECT id FROM calls WHERE company_id = $1 AND status = 'completed' ORDER BY id LIMIT 1",
        [account.companyId],
      );
      const viewer = await app.userWith(['view-ai-dashboard']);
      const before = await app.fingerprint();
      const put = (id: string | number, body: unknown, token = owner) =>
        app.request('PUT', `/api/ai/dashboard/calls/${encodeURIComponent(String(id))}/analysis`, { token, body });

      const angry = await put(ended, { sentiment: 'angry' });
      assert.equal(angry.status, 422);
      assert.deepEqual(Object.keys(angry.body.errors), ['sentiment']);
      const bad = await put(ended, {
        summary: 'x'.repeat(5001),
        custom_analysis: { 'Bad Name': 1, nested: { a: 1 } },
        recording_url: 'ftp://x',
      });
      assert.equal(bad.status, 422);
      assert.deepEqual(Object.keys(bad.body.errors).sort(), ['custom_analysis', 'recording_url', 'summary']);
      assert.match(bad.body.errors.custom_analysis.join(' '), /field name "Bad Name" must be lower-case/);
      assert.match(
        bad.body.errors.custom_analysis.join(' '),
        /field nested must be a string, a number, true, false or null/,
      );
      const many = await put(ended, {
        custom_analysis: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, i])),
      });
      assert.equal(many.status, 422);
      assert.match(many.body.errors.custom_analysis[0], /must not have more than 50 keys \(got 51\)/);

      const inProgress = await put(live, { summary: 'Too early' });
      assert.equal(inProgress.status, 409);
      assert.equal(inProgress.body.message, 'A call is analysed once it has ended: this one is still in progress.');
      for (const id of [theirs, toBase64Id(theirs), 'not-an-id', '99999999'])
        assert.equal((await put(id, { summary: 'x' })).status, 404, String(id));
      assert.equal((await put(ended, { summary: 'x' }, viewer)).status, 403);
      assert.equal(await app.fingerprint(), before);
    },
  );

  it('once the company declares its analysis fields, an analysis holds only them, each of its type, from the API and from the provider', async () => {
    const put = (body: unknown) => app.request('PUT', '/api/ai/dashboard/analysis-fields', { token: owner, body });
    // A type outside the enum is refused with the value and the types accepted (the document's enum)...
    const badType = await put({ fields: [{ name: 'mood', type: 'feeling' }] });
    assert.equal(badType.status, 422);
    assert.deepEqual(badType.body.errors, {
      'fields.0.type': [
        'The fields.type field does not accept "feeling"; it accepts "string", "number", "boolean" or "choice".',
      ],
    });
    // ...and the service's rules name every other problem at once, the name as long as the document allows.
    const bad = await put({
      fields: [
        { name: 'Bad Name', type: 'string' },
        { name: 'a'.repeat(65), type: 'string' },
        { name: 'plan', type: 'choice' },
        { name: 'plan2', type: 'number', choices: ['a'] },
      ],
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(Object.keys(bad.body.errors).sort(), [
      'fields.0.name',
      'fields.1.name',
      'fields.2.choices',
      'fields.3.choices',
    ]);
    assert.ok(await put({ fields: [{ name: 'a'.repeat(64), type: 'string' }] }).then((r) => r.status === 200));
    await put({ fields: [] });
    const fields = [
      { name: 'insurance_provider', type: 'string', description: 'Who insures the caller' },
      { name: 'new_patient', type: 'boolean' },
      { name: 'visit', type: 'choice', choices: ['cleaning', 'checkup'] },
    ];
    const saved = await put({ fields });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(saved.body.data, [
      { name: 'insurance_provider', type: 'string', description: 'Who insures the caller', choices: null },
      { name: 'new_patient', type: 'boolean', description: null, choices: null },
      { name: 'visit', type: 'choice', description: null, choices: ['cleaning', 'checkup'] },
    ]);
    assert.deepEqual(
      (await app.request('GET', '/api/ai/dashboard/analysis-fields', { token: owner })).body.data,
      saved.body.data,
    );

    const sid = await playScenario('missed-call', {
      url: app.url,
      accountSid: account.sid,
      authToken: account.authToken,
      number: ours,
      contact: '+14155550155',
    });
    const { id } = await callOf(sid);
    const analyse = (custom: Record<string, unknown>) =>
      app.request('PUT', `/api/ai/dashboard/calls/${id}/analysis`, { token: owner, body: { custom_analysis: custom } });
    const undeclared = await analyse({ favourite_colour: 'blue', visit: 'surgery', new_patient: 'yes' });
    assert.equal(undeclared.status, 422);
    assert.deepEqual(undeclared.body.errors.custom_analysis, [
      "The custom analysis field favourite_colour is not one of the company's analysis fields (insurance_provider, new_patient, visit).",
      'The custom analysis field visit must be one of cleaning, checkup.',
      'The custom analysis field new_patient must be a boolean.',
    ]);
    const fine = await analyse({ visit: 'checkup', new_patient: false, insurance_provider: null });
    assert.equal(fine.status, 200, fine.text);
    // The provider's callback is held to the same declarations, naming its parameter.
    const refused = await postCallback(
      app.url,
      account.authToken,
      '/api/telco/voice/analysis',
      analysis(sid, { CustomAnalysis: '{"visit":"surgery"}' }),
    );
    assert.equal(refused.status, 422);
    assert.match(JSON.stringify(await refused.json()), /CustomAnalysis.*must be one of cleaning, checkup/);
    assert.deepEqual((await callOf(sid)).custom_analysis, {
      visit: 'checkup',
      new_patient: false,
      insurance_provider: null,
    });
    // An empty list allows any field again.
    assert.deepEqual((await put({ fields: [] })).body.data, []);
    assert.equal((await analyse({ favourite_colour: 'blue' })).status, 200);
    const viewer = await app.userWith(['view-ai-dashboard']);
    assert.equal(
      (await app.request('PUT', '/api/ai/dashboard/analysis-fields', { token: viewer, body: { fields: [] } })).status,
      403,
    );
  });
});
