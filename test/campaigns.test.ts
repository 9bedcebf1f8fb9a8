import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from './helpers/app.js';
import { Receiver } from './helpers/receiver.js';

// Dialer campaigns, leads and booked appointments, over REST and GraphQL:
// each state change records its event once, delivered signed to a receiver.
// The dialer is off here: these are the records' own rules (test/dialer.test.ts dials).

let app: TestApp;
let receiver: Receiver;
let token: string;
let hook: { id: number; secret: string };

const delivered = async (event: string, filter: (data: Record<string, unknown>) => boolean) => {
  const rows = await app.sql<{ payload: string }>(
    'SELECT payload FROM webhook_deliveries WHERE webhook_id = $1 AND event = $2',
    [hook.id, event],
  );
  return rows.map((r) => JSON.parse(r.payload).data).filter(filter);
};

before(async () => {
  app = await startTestApp({ DIALER: 'false' });
  receiver = await new Receiver().start();
  token = await app.login('owner@acme.test');
  const created = await app.graphql(
    'mutation ($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } secret } }',
    {
      input: {
        title: 'Dialer',
        url: `${receiver.url}/dialer`,
        events: ['campaign_started', 'campaign_completed', 'lead_generated', 'appointment_scheduled'],
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

describe('dialer campaigns and leads', () => {
  it('a campaign runs draft, running, completed; its leads are lead.generated; each change once', async () => {
    const created = await app.request('POST', '/api/campaigns', { token, body: { name: 'November reactivation' } });
    assert.equal(created.status, 201);
    assert.equal(created.body.data.status, 'draft');
    const id = created.body.data.id;

    const started = await app.request('POST', `/api/campaigns/${id}/start`, { token });
    assert.equal(started.status, 200);
    assert.equal(started.body.data.status, 'running');
    const again = await app.request('POST', `/api/campaigns/${id}/start`, { token });
    assert.equal(again.status, 409);
    assert.equal(again.body.message, 'The campaign is running; only a draft or scheduled campaign can start.');

    const byNumber = await app.request('POST', '/api/leads', {
      token,
      body: { phone_number: '+14155550161', campaign_id: String(id), source: 'import' },
    });
    assert.equal(byNumber.status, 201, byNumber.text);
    const contact = await app.request('POST', '/api/contacts', {
      token,
      body: { phone_number: '+14155550162', first_name: 'Grace', last_name: 'Hopper' },
    });
    const byContact = await app.graphql(
      'mutation ($c: ID, $k: ID) { createLead(contactId: $c, campaignId: $k) { id campaignId } }',
      { c: String(contact.body.data.id), k: String(id) },
      token,
    );
    assert.equal(byContact.body.errors, undefined, byContact.text);
    assert.equal(byContact.body.data.createLead.campaignId, id);
    const [stage] = await app.sql(
      'SELECT s.id FROM pipeline_stages s JOIN pipelines p ON p.id = s.pipeline_id JOIN companies c ON ' +
        "c.id = p.company_id WHERE c.name = 'Acme Agency' ORDER BY s.id LIMIT 1",
    );
    const inStage = await app.request('POST', '/api/leads', {
      token,
      body: { phone_number: '+14155550163', pipeline_stage_id: String(stage.id) },
    });
    assert.equal(inStage.status, 201);

    const completed = await app.request('POST', `/api/campaigns/${id}/complete`, { token });
    assert.equal(completed.status, 200);
    assert.equal(completed.body.data.leads, 2);
    assert.equal((await app.request('POST', `/api/campaigns/${id}/complete`, { token })).status, 409);
    const late = await app.request('POST', '/api/leads', {
      token,
      body: { phone_number: '+14155550164', campaign_id: String(id) },
    });
    assert.equal(late.status, 422);
    assert.deepEqual(Object.keys(late.body.errors), ['campaign_id']);

    assert.equal((await delivered('campaign.started', (d) => d.campaign_id === String(id))).length, 1);
    const [done] = await delivered('campaign.completed', (d) => d.campaign_id === String(id));
    assert.equal(done.leads, 2);
    const leads = await delivered('lead.generated', () => true);
    assert.equal(leads.length, 3);
    const grace = leads.find((d) => (d.contact as { first_name?: string }).first_name === 'Grace');
    assert.deepEqual(grace!.contact, { phone_number: '+14155550162', first_name: 'Grace', last_name: 'Hopper' });
    assert.equal(leads.find((d) => d.pipeline_stage_id === String(stage.id))!.campaign_id, null);

    const [message] = await receiver.waitFor(1, 10_000, (r) => r.body.includes('"event":"campaign.completed"'));
    assert.ok(new StandardWebhook(hook.secret).verify(message.body, message.headers as Record<string, string>));

    const list = await app.request('GET', `/api/leads?campaign_id=${id}`, { token });
    assert.equal(list.body.data.pagination.total, 2);
    const campaigns = await app.graphql('{ campaigns(status: completed) { records { id leads } } }', {}, token);
    assert.deepEqual(campaigns.body.data.campaigns.records, [{ id, leads: 2 }]);
  });

  it("refuses bad input and other companies' records, changing nothing", async () => {
    const [gamma] = await app.sql("SELECT id FROM companies WHERE name = 'Gamma Solar'");
    const [foreign] = await app.sql(
      "INSERT INTO campaigns (company_id, name, status, created_at, updated_at) VALUES ($1, 'Theirs', 'draft', now(), now()) RETURNING id",
      [gamma.id],
    );
    const before = await app.fingerprint();
    assert.equal((await app.request('POST', `/api/campaigns/${foreign.id}/start`, { token })).status, 404);
    assert.equal((await app.request('POST', '/api/campaigns/not-an-id/start', { token })).status, 404);
    const lead = await app.request('POST', '/api/leads', {
      token,
      body: { phone_number: '+14155550170', campaign_id: String(foreign.id) },
    });
    assert.equal(lead.status, 422);
    const nothing = await app.request('POST', '/api/leads', { token, body: {} });
    assert.deepEqual(Object.keys(nothing.body.errors).sort(), ['campaign_id', 'contact_id']);
    assert.equal((await app.request('POST', '/api/campaigns', { token, body: { name: '' } })).status, 422);
    assert.equal(await app.fingerprint(), before);
  });

  it('over GraphQL answers with the call as the appointment list shows it, so a cached row updates', async () => {
    const [call] = await app.sql(
      "SELECT k.id, to_char(k.started_at AT TIME ZONE 'America/New_York', 'YYYY-MM-DD') AS day FROM calls " +
        "k JOIN companies c ON c.id = k.company_id WHERE c.name = 'Acme Agency' AND k.appointment_at IS NULL " +
        'ORDER BY k.id DESC LIMIT 1',
    );
    const ROW =
      'id callDatetime agentName numbers { from to } duration appointment status direction sentiment recordingAvailable startedAt appointmentAt __typename';
    const booked = await app.graphql(
      `mutation($id: ID!) { bookCallAppointment(id: $id, appointmentAt: "2026-12-04T16:30:00Z") { ${ROW} } }`,
      { id: String(call.id) },
      token,
    );
    assert.equal(booked.body.errors, undefined, booked.text);
    const row = booked.body.data.bookCallAppointment;
    assert.equal(row.__typename, 'Call');
    assert.equal(row.appointmentAt, '2026-12-04T16:30:00.000Z');
    assert.equal(row.appointment, '2026-12-04 11:30:00', 'the wall clock in the company zone');
    const list = await app.graphql(
      `query($day: String) { appointmentCalls(filter: { startDate: $day, endDate: $day }, perPage: 100) { records { ${ROW} } } }`,
      { day: call.day },
      token,
    );
    assert.deepEqual(
      list.body.data.appointmentCalls.records.find((r: { id: number }) => r.id === call.id),
      row,
      'the same typename, id and fields as the list row',
    );
  });
});

describe("booking a call's appointment", () => {
  it('PUT /api/ai/dashboard/calls/{id}/appointment: appointment.scheduled once per time, and the call joins the appointment list', async () => {
    const [call] = await app.sql(
      "SELECT k.id, to_char(k.started_at AT TIME ZONE 'America/New_York', 'YYYY-MM-DD') AS day FROM calls " +
        "k JOIN companies c ON c.id = k.company_id WHERE c.name = 'Acme Agency' AND k.appointment_at IS NULL " +
        'ORDER BY k.id LIMIT 1',
    );
    const listed = async () =>
      (
        await app.request(
          'GET',
          `/api/ai/dashboard/appointments?start_date=${call.day}&end_date=${call.day}&per_page=100`,
          { token },
        )
      ).body.data.records.some((r: { id: number }) => r.id === call.id);
    assert.equal(await listed(), false);
    const at = '2026-12-01T15:00:00.000Z';
    const booked = await app.request('PUT', `/api/ai/dashboard/calls/${call.id}/appointment`, {
      token,
      body: { appointment_at: at },
    });
    assert.equal(booked.status, 200, booked.text);
    assert.deepEqual(booked.body, {
      success: true,
      message: 'Appointment booked successfully.',
      data: { call_id: call.id, appointment_at: at },
    });
    assert.equal(
      (
        await app.request(
          'PUT',
          `/api/ai/dashboard/calls/${Buffer.from(String(call.id)).toString('base64')}/appointment`,
          { token, body: { appointment_at: at } },
        )
      ).status,
      200,
    );
    assert.equal(await listed(), true);
    assert.equal(
      (await delivered('appointment.scheduled', (d) => d.call_id === String(call.id))).length,
      1,
      'the same time twice is one event',
    );
    const moved = await app.request('PUT', `/api/ai/dashboard/calls/${call.id}/appointment`, {
      token,
      body: { appointment_at: '2026-12-02T15:00:00Z' },
    });
    assert.equal(moved.status, 200);
    assert.equal((await delivered('appointment.scheduled', (d) => d.call_id === String(call.id))).length, 2);

    const before = await app.fingerprint();
    assert.equal(
      (
        await app.request('PUT', `/api/ai/dashboard/calls/${call.id}/appointment`, {
          token,
          body: { appointment_at: 'next tuesday' },
        })
      ).status,
      422,
    );
    const [theirs] = await app.sql(
      "SELECT k.id FROM calls k JOIN companies c ON c.id = k.company_id WHERE c.name = 'Gamma Solar' LIMIT 1",
    );
    assert.equal(
      (
        await app.request('PUT', `/api/ai/dashboard/calls/${theirs.id}/appointment`, {
          token,
          body: { appointment_at: at },
        })
      ).status,
      404,
    );
    assert.equal(await app.fingerprint(), before);
  });
});
