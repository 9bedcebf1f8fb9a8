import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually, Receiver } from './helpers/receiver.js';

// Delivery history by subject: "did call 5012's webhooks arrive?" answered
// across every webhook of the company, by call, contact and agent id, over
// REST and GraphQL, with a resend from the answer; other companies see none
// of it, and a question without exactly one well-formed id is refused.

let app: TestApp;
let owner: string;
let receiver: Receiver;
const hooks: Array<{ id: number; secret: string }> = [];

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  receiver = await new Receiver().start();
  for (const [title, events] of [
    ['Everything', ['appointment_scheduled', 'agent_created']],
    ['Bookings', ['appointment_scheduled']],
  ] as const) {
    const created = await app.graphql(
      'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } secret } }',
      { input: { title, url: `${receiver.url}/${title}`, events } },
      owner,
    );
    hooks.push({ id: created.body.data.createWebhook.webhook.id, secret: created.body.data.createWebhook.secret });
  }
});
after(async () => {
  await receiver.close();
  await app.close();
});

const bySubject = (query: string, token = owner) => app.request('GET', `/api/webhooks/deliveries?${query}`, { token });

describe('deliveries by subject', () => {
  it('finds what a call, its contact and its agent caused across every webhook, and resends from there', async () => {
    const [call] = await app.sql(
      'SELECT k.id, k.agent_id, k.from_number FROM calls k JOIN companies c ON c.id = k.company_id WHERE ' +
        "c.name = 'Acme Agency' AND k.agent_id IS NOT NULL AND k.appointment_at IS NULL ORDER BY k.id LIMIT 1",
    );
    const contact = await app.request('POST', '/api/contacts', {
      token: owner,
      body: { phone_number: '+14155550177', first_name: 'Subject', last_name: 'Sue' },
    });
    assert.equal(contact.status, 201, contact.text);
    const contactId = contact.body.data.id;
    await app.sql('UPDATE calls SET contact_id = $1 WHERE id = $2', [contactId, call.id]);
    const booked = await app.request('PUT', `/api/ai/dashboard/calls/${call.id}/appointment`, {
      token: owner,
      body: { appointment_at: '2026-12-03T15:00:00Z' },
    });
    assert.equal(booked.status, 200, booked.text);
    await receiver.waitFor(2, 10_000, (r) => JSON.parse(r.body).event === 'appointment.scheduled');

    const byCall = await bySubject(`call_id=${call.id}`);
    assert.equal(byCall.status, 200, byCall.text);
    assert.equal(byCall.body.data.pagination.total, 2);
    assert.deepEqual(
      byCall.body.data.records.map((d: { webhook_id: number; event: string }) => [d.webhook_id, d.event]).sort(),
      hooks.map((h) => [h.id, 'appointment.scheduled']).sort(),
    );
    const byContact = await bySubject(`contact_id=${contactId}`);
    assert.deepEqual(
      byContact.body.data.records.map((d: { id: string }) => d.id).sort(),
      byCall.body.data.records.map((d: { id: string }) => d.id).sort(),
    );
    const byAgent = await bySubject(`agent_id=${call.agent_id}&per_page=100`);
    assert.ok(
      byCall.body.data.records.every((d: { id: string }) =>
        byAgent.body.data.records.some((a: { id: string }) => a.id === d.id),
      ),
      "the booking names the call's agent",
    );

    const gql = await app.graphql(
      'query($id: ID) { webhookDeliveriesBySubject(callId: $id) { records { event webhookId status } pagination { total } } }',
      { id: String(call.id) },
      owner,
    );
    assert.equal(gql.body.data.webhookDeliveriesBySubject.pagination.total, 2);
    assert.ok(
      gql.body.data.webhookDeliveriesBySubject.records.every(
        (d: { event: string }) => d.event === 'appointment_scheduled',
      ),
    );

    // An agent created now: its own events are found by its id.
    const agent = await app.graphql('mutation { createAgent(name: "Subject Sam") { id } }', {}, owner);
    const agentId = agent.body.data.createAgent.id;
    await receiver.waitFor(1, 10_000, (r) => JSON.parse(r.body).data.agent_id === String(agentId));
    const agentDeliveries = await bySubject(`agent_id=${agentId}`);
    assert.deepEqual(
      agentDeliveries.body.data.records.map((d: { event: string; webhook_id: number }) => [d.event, d.webhook_id]),
      [['agent.created', hooks[0].id]],
    );

    // Resend one of the call's deliveries from the answer: it arrives again, same id, verified.
    const again = byCall.body.data.records.find((d: { webhook_id: number }) => d.webhook_id === hooks[1].id);
    await receiver.waitFor(1, 10_000, (r) => r.headers['webhook-id'] === again.id);
    await eventually(
      async () =>
        (await app.sql('SELECT status FROM webhook_deliveries WHERE id = $1', [again.id]))[0].status === 'succeeded'
          ? true
          : undefined,
      10_000,
      'the first copy recorded',
    );
    const resent = await app.request('POST', `/api/webhooks/deliveries/${again.id}/resend`, { token: owner });
    assert.equal(resent.status, 202, resent.text);
    const copies = await receiver.waitFor(2, 10_000, (r) => r.headers['webhook-id'] === again.id);
    assert.equal(
      (
        new StandardWebhook(hooks[1].secret).verify(copies[1].body, copies[1].headers as Record<string, string>) as {
          event: string;
        }
      ).event,
      'appointment.scheduled',
    );

    // Another company asks about the same call: nothing.
    const other = await bySubject(`call_id=${call.id}`, await app.login('owner@beta.test'));
    assert.equal(other.status, 200);
    assert.equal(other.body.data.pagination.total, 0);
  });

  it('refuses a question without exactly one well-formed id, naming the field', async () => {
    for (const [query, field] of [
      ['', 'call_id'],
      ['call_id=1&agent_id=2', 'call_id'],
      ['call_id=abc', 'call_id'],
      ['contact_id=0', 'contact_id'],
      ['agent_id=1%3B%20DROP', 'agent_id'],
    ] as const) {
      const res = await bySubject(query);
      assert.equal(res.status, 422, query);
      assert.deepEqual(Object.keys(res.body.errors), [field], `${query}: ${res.text}`);
    }
    const gql = await app.graphql(
      '{ webhookDeliveriesBySubject(campaignId: "x") { pagination { total } } }',
      {},
      owner,
    );
    assert.deepEqual(Object.keys(gql.body.errors[0].extensions.errors), ['campaignId']);
    assert.equal((await app.request('GET', '/api/webhooks/deliveries?call_id=1')).status, 401);
  });
});
