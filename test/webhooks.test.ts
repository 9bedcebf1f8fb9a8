import assert from 'node:assert/strict';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { after, before, describe, it } from 'node:test';
import { toBase64Id } from '../src/kernel/ids.js';
import { TEST_VECTOR } from '../src/webhooks/config/docs.js';
import { payloadSignature, signAttempt, standardSignature, verifyBody } from '../src/webhooks/config/signing.js';
import { assertInFlightCounted } from './helpers/leases.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually, Receiver, sleep } from './helpers/receiver.js';

// Webhooks end to end: configuration over REST, events recorded by real
// operations, deliveries to a real receiver on loopback, verified with our
// recipe and with the standardwebhooks and svix libraries.

const DELAYS = [300, 600, 900, 1200];
/** How late a retry may come: its 50 ms window and a claim, well under the second a scan or a poll would leave it. */
const ON_TIME_MS = 200;
let app: TestApp;
let owner: string;
let receiver: Receiver;
const logs: string[] = [];

before(async () => {
  app = await startTestApp(
    { WEBHOOK_RETRY_DELAYS: DELAYS.map((ms) => `${ms}ms`).join(','), WEBHOOK_TIMEOUT: '800ms', LOG_LEVEL: 'info' },
    { logs },
  );
  owner = await app.login('owner@acme.test');
  receiver = await new Receiver().start();
});
after(async () => {
  await receiver.close();
  await app.close();
});

const api = (method: string, path: string, body?: unknown, token = owner) => app.request(method, path, { token, body });
const createHook = async (overrides: Record<string, unknown> = {}, url = receiver.url) => {
  const res = await api('POST', '/api/webhooks', {
    title: 'Receiver',
    url,
    events: ['agent.created', 'agent.updated', 'agent.status_changed'],
    ...overrides,
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data as { id: number; secret: string };
};
const createAgent = (name: string) =>
  app.graphql('mutation($n: String!) { createAgent(name: $n) { id } }', { n: name }, owner);
const deliveryOf = async (id: string) => (await api('GET', `/api/webhooks/deliveries/${id}`)).body.data;
const forWebhook = (webhookId: number) => (r: { body: string }) => JSON.parse(r.body).webhook_id === String(webhookId);

describe('the signature recipe', () => {
  // Computed independently with openssl; published in docs/webhooks.md.
  const { secret, payload, signature } = TEST_VECTOR;

  it('matches the documented test vector, for both signatures', () => {
    assert.equal(payloadSignature(secret, payload), signature);
    const signed = signAttempt({
      secrets: [secret],
      deliveryId: TEST_VECTOR.webhookId,
      event: 'agent.created',
      attempt: 1,
      payload,
      now: new Date(TEST_VECTOR.webhookTimestamp * 1000),
      userAgent: 'x',
    });
    assert.equal(signed.body, `${payload.slice(0, -2)},"signature":"${signature}"}}`);
    assert.equal(signature, 'sha256=279d6823fda9882cdc57f15e1504d4e1a70a3de1481ea95ee66dcd945ca76d77');
    assert.equal(signed.headers['webhook-signature'], TEST_VECTOR.standardSignature);
    assert.equal(TEST_VECTOR.standardSignature, 'v1,WMTN/GjMrriVXDg2LTX6SCDXMOddvXqHfUO7rDl31MA=');
    assert.ok(verifyBody(secret, signed.body, signature));
  });

  it('detects tampering', () => {
    const signed = signAttempt({
      secrets: [secret],
      deliveryId: 'msg_x',
      event: 'agent.created',
      attempt: 1,
      payload,
      now: new Date(),
      userAgent: 'x',
    });
    assert.ok(!verifyBody(secret, signed.body.replace('"Ava"', '"Eve"'), signature));
    assert.ok(!verifyBody('whsec_other', signed.body, signature));
    assert.ok(!verifyBody(secret, signed.body, signature.replace(/.$/, '0')));
    const sw = new StandardWebhook(secret);
    assert.throws(() => sw.verify(signed.body.replace('"Ava"', '"Eve"'), signed.headers));
    assert.notEqual(standardSignature(secret, 'msg_x', 1, 'a'), standardSignature(secret, 'msg_x', 2, 'a'));
  });
});

describe('webhook configuration over REST', () => {
  it('creates with the secret shown once, lists and reads without it', async () => {
    const res = await api('POST', '/api/webhooks', {
      title: 'CRM sync',
      url: `${receiver.url}/crm`,
      events: ['call.ended', 'call.started', 'call.ended'],
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.message, 'Webhook created successfully.');
    const created = res.body.data;
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(created.events, ['call.started', 'call.ended'], 'duplicates dropped, catalog order');
    assert.equal(created.method, 'POST');
    assert.equal(created.list_selection, 'Basic');
    assert.deepEqual(created.form_data, ['phone_number', 'first_name', 'last_name']);
    assert.equal(created.active, true);
    assert.equal(created.hits, 0);
    assert.equal(created.last_hit, null);
    assert.match(created.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const list = await api('GET', '/api/webhooks?search=crm');
    assert.equal(list.status, 200);
    assert.ok(list.body.data.records.some((w: any) => w.id === created.id));
    assert.ok(!list.text.includes(created.secret) && !list.text.includes('secret'));
    for (const id of [String(created.id), toBase64Id(created.id)]) {
      const one = await api('GET', `/api/webhooks/${id}`);
      assert.equal(one.status, 200);
      assert.equal(one.body.data.title, 'CRM sync');
      assert.ok(!one.text.includes(created.secret));
    }
    const secret = await api('GET', `/api/webhooks/${created.id}/secret`);
    assert.deepEqual(secret.body.data, { secret: created.secret, previous_secret_expires_at: null });
    const [{ secret_sealed: sealed }] = await app.sql('SELECT secret_sealed FROM webhooks WHERE id = $1', [created.id]);
    assert.ok(!sealed.includes(created.secret.slice(6, 20)), 'stored sealed');
  });

  it('fills form data from the list selection, or names the selection from the form data', async () => {
    const full = await api('POST', '/api/webhooks', {
      title: 'Full',
      url: receiver.url,
      events: ['sms.received'],
      list_selection: 'Full',
    });
    assert.deepEqual(full.body.data.form_data, [
      'phone_number',
      'first_name',
      'last_name',
      'email',
      'address',
      'city',
      'state',
      'zip',
      'country',
    ]);
    const named = await api('POST', '/api/webhooks', {
      title: 'Named',
      url: receiver.url,
      events: ['sms.received'],
      form_data: ['email', 'first_name', 'phone_number', 'last_name'],
    });
    assert.equal(named.body.data.list_selection, 'Contact');
    const custom = await api('POST', '/api/webhooks', {
      title: 'Custom',
      url: receiver.url,
      events: ['sms.received'],
      form_data: ['email', 'custom_fields.source'],
    });
    assert.equal(custom.body.data.list_selection, 'Custom');
    const clash = await api('POST', '/api/webhooks', {
      title: 'Clash',
      url: receiver.url,
      events: ['sms.received'],
      list_selection: 'Basic',
      form_data: ['email'],
    });
    assert.equal(clash.status, 422);
    assert.deepEqual(Object.keys(clash.body.errors), ['list_selection']);
  });

  it('refuses bad input naming the field, and changes nothing', async () => {
    const before = (await app.sql('SELECT count(*)::int AS n FROM webhooks'))[0].n;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: receiver.url, events: ['call.ended'] }, 'title'],
      [{ title: 'x'.repeat(256), url: receiver.url, events: ['call.ended'] }, 'title'],
      [{ title: 'T', events: ['call.ended'] }, 'url'],
      [{ title: 'T', url: 'ftp://example.com/hook', events: ['call.ended'] }, 'url'],
      [{ title: 'T', url: 'https://user:pass@example.com/hook', events: ['call.ended'] }, 'url'],
      [{ title: 'T', url: `https://example.com/${'a'.repeat(2048)}`, events: ['call.ended'] }, 'url'],
      [{ title: 'T', url: receiver.url, events: [] }, 'events'],
      [{ title: 'T', url: receiver.url, events: ['call.exploded'] }, 'events.0'],
      [{ title: 'T', url: receiver.url, events: ['call.ended'], method: 'GET' }, 'method'],
      [{ title: 'T', url: receiver.url, events: ['call.ended'], form_data: ['password'] }, 'form_data.0'],
      [{ title: 'T', url: receiver.url, events: ['call.ended'], list_selection: 'Everything' }, 'list_selection'],
      [{ title: 'T', url: receiver.url, events: ['call.ended'], rate_limit: 0 }, 'rate_limit'],
      [{ title: 'T', url: receiver.url, events: ['call.ended'], rate_limit: 1001 }, 'rate_limit'],
      [{ title: 'T', url: receiver.url, events: ['call.ended'], rate_limit: 2.5 }, 'rate_limit'],
      [{ title: 'T', url: receiver.url, events: ['call.ended'], rate_limit: 'fast' }, 'rate_limit'],
    ];
    for (const [body, field] of cases) {
      const res = await api('POST', '/api/webhooks', body);
      assert.equal(res.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      assert.ok(Object.keys(res.body.errors).includes(field), `${field}: ${JSON.stringify(res.body.errors)}`);
    }
    assert.equal((await app.sql('SELECT count(*)::int AS n FROM webhooks'))[0].n, before);
  });

  it("answers 404 for another company's, unknown and malformed ids", async () => {
    const { id } = await createHook();
    const gamma = await app.login('owner@gamma.test');
    for (const [method, suffix] of [
      ['GET', ''],
      ['PUT', ''],
      ['DELETE', ''],
      ['GET', '/secret'],
      ['POST', '/rotate-secret'],
      ['POST', '/test'],
      ['GET', '/deliveries'],
    ] as const) {
      assert.equal(
        (await api(method, `/api/webhooks/${id}${suffix}`, method === 'GET' ? undefined : {}, gamma)).status,
        404,
        `${method} ${suffix}`,
      );
      assert.equal((await api(method, `/api/webhooks/999999${suffix}`, method === 'GET' ? undefined : {})).status, 404);
      assert.equal(
        (await api(method, `/api/webhooks/not-an-id${suffix}`, method === 'GET' ? undefined : {})).status,
        404,
      );
    }
    assert.equal((await api('GET', '/api/webhooks/deliveries/msg_nope')).status, 404);
    const encrypted = app.running.services.ids.encrypt('webhook', id);
    assert.equal((await api('GET', `/api/webhooks/${encrypted}`)).status, 200);
    assert.equal((await api('GET', `/api/webhooks/${app.running.services.ids.encrypt('role', id)}`)).status, 404);
  });

  it('updates, re-activates with the reason cleared, and deletes', async () => {
    const { id } = await createHook();
    const upd = await api('PUT', `/api/webhooks/${id}`, { title: 'Renamed', active: false });
    assert.equal(upd.body.message, 'Webhook updated successfully.');
    assert.equal(upd.body.data.title, 'Renamed');
    assert.equal(upd.body.data.active, false);
    await app.sql("UPDATE webhooks SET disabled_reason = 'failing' WHERE id = $1", [id]);
    const back = await api('PUT', `/api/webhooks/${id}`, { active: true });
    assert.equal(back.body.data.active, true);
    assert.equal(back.body.data.disabled_reason, null);
    const del = await api('DELETE', `/api/webhooks/${id}`);
    assert.deepEqual(del.body, { success: true, message: 'Webhook deleted successfully.' });
    assert.equal((await api('GET', `/api/webhooks/${id}`)).status, 404);
  });

  it(
    "publishes the twenty-five event types (the spec's sixteen, call.analyzed, four of the dialer's and four operator " +
      'events) ' +
      'with a schema and an example, and the form fields',
    async () => {
      const res = await api('GET', '/api/webhooks/event-types');
      assert.equal(res.body.data.length, 25);
      assert.deepEqual(
        res.body.data.filter((e: any) => e.category === 'operator').map((e: any) => e.name),
        ['webhook.failing', 'webhook.disabled', 'webhook.recovered', 'delivery.exhausted'],
      );
      const ended = res.body.data.find((e: any) => e.name === 'call.ended');
      assert.equal(ended.category, 'call');
      assert.deepEqual(
        Object.keys(ended.schema.properties).filter((k) => k !== 'contact'),
        [
          'call_id',
          'agent_id',
          'caller_number',
          'called_number',
          'call_direction',
          'call_duration',
          'call_status',
          'recording_url',
          'transcription',
          'sentiment',
          'disposition',
          'tags',
          'custom_fields',
        ],
      );
      for (const event of res.body.data) {
        for (const key of event.schema.required) assert.ok(key in event.example, `${event.name} example lacks ${key}`);
      }
      const fields = await api('GET', '/api/webhooks/form-fields');
      assert.ok(fields.body.data.fields.includes('custom_fields'));
      assert.deepEqual(
        fields.body.data.list_selections.map((s: any) => s.name),
        ['Basic', 'Contact', 'Full', 'All', 'Custom'],
      );
    },
  );
});

describe('deliveries', () => {
  it('an agent created through GraphQL reaches the receiver signed, verified by our recipe, standardwebhooks and svix', async () => {
    const { id, secret } = await createHook();
    const created = await createAgent('Webhook Ava');
    const agentId = created.body.data.createAgent.id;
    const [request] = await receiver.waitFor(1, 10_000, forWebhook(id));
    const body = JSON.parse(request.body);
    assert.deepEqual(Object.keys(body), ['event', 'timestamp', 'webhook_id', 'data', 'metadata']);
    assert.equal(body.event, 'agent.created');
    assert.equal(body.webhook_id, String(id));
    assert.deepEqual(body.data, {
      agent_id: String(agentId),
      name: 'Webhook Ava',
      active: true,
      online: false,
      contact: null,
    });
    assert.match(body.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.deepEqual(Object.keys(body.metadata), ['version', 'signature']);
    assert.equal(body.metadata.signature, request.headers['x-webhook-signature']);
    assert.ok(verifyBody(secret, request.body, String(request.headers['x-webhook-signature'])));
    const headers = request.headers as Record<string, string>;
    assert.equal(headers['content-type'], 'application/json');
    assert.match(headers['user-agent'], /^Switchboard-Webhooks\/\d+\.\d+\.\d+/);
    assert.match(headers['x-webhook-id'], /^msg_[0-9A-Z]{26}$/);
    assert.equal(headers['webhook-id'], headers['x-webhook-id']);
    assert.equal(headers['x-webhook-event'], 'agent.created');
    assert.equal(headers['x-webhook-attempt'], '1');
    assert.ok(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000) < 30);
    assert.deepEqual(new StandardWebhook(secret).verify(request.body, headers), body);
    // svix verifies too (it throws on a bad signature).
    assert.doesNotThrow(() => new SvixWebhook(secret).verify(request.body, headers));
    assert.throws(() => new SvixWebhook(secret).verify(request.body.replace('Webhook Ava', 'Webhook Eve'), headers));
    const delivery = await eventually(async () => {
      const d = await deliveryOf(headers['x-webhook-id']);
      return d.status === 'succeeded' ? d : undefined;
    });
    assert.equal(delivery.attempt_count, 1);
    assert.equal(delivery.last_status_code, 200);
    assert.equal(delivery.attempts.length, 1);
    assert.deepEqual(Object.keys(delivery.attempts[0]), [
      'number',
      'trigger',
      'attempted_at',
      'status_code',
      'duration_ms',
      'response_body',
      'error',
      'headers',
    ]);
    assert.equal(delivery.attempts[0].response_body, 'ok');
    assert.equal(delivery.payload, request.body.replace(`,"signature":"${body.metadata.signature}"`, ''));
    const hook = (await api('GET', `/api/webhooks/${id}`)).body.data;
    assert.equal(hook.hits, 1);
    assert.ok(hook.last_hit);
  });

  it('agent updates and online switches send agent.updated and agent.status_changed; other events are not sent', async () => {
    const { id } = await createHook({ events: ['agent.updated', 'agent.status_changed'] });
    const agentId = (await createAgent('Switcher')).body.data.createAgent.id;
    await app.graphql('mutation($id: ID!) { updateAgent(id: $id, name: "Switcher 2") { id } }', { id: agentId }, owner);
    await app.graphql('mutation($id: ID!) { setAgentOnline(id: $id, online: true) { id } }', { id: agentId }, owner);
    const got = await receiver.waitFor(2, 10_000, forWebhook(id));
    await sleep(300);
    const events = receiver.received.filter(forWebhook(id)).map((r) => JSON.parse(r.body));
    assert.deepEqual(events.map((e) => e.event).sort(), ['agent.status_changed', 'agent.updated']);
    const updated = events.find((e) => e.event === 'agent.updated');
    assert.deepEqual(updated.data.changes, ['name']);
    const status = events.find((e) => e.event === 'agent.status_changed');
    assert.equal(status.data.status, 'online');
    assert.equal(status.data.previous_status, 'offline');
    assert.equal(got.length, 2);
  });

  it('a rolled-back change sends nothing', async () => {
    const { id } = await createHook({ events: ['agent.created'] });
    await app.sql(
      `CREATE FUNCTION refuse_agent() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused at commit'; END $$ LANGUAGE plpgsql`,
    );
    await app.sql(
      `CREATE CONSTRAINT TRIGGER refuse_agent AFTER INSERT ON agents DEFERRABLE INITIALLY DEFERRED FOR ` +
        `EACH ROW WHEN (NEW.name = 'Doomed') EXECUTE FUNCTION refuse_agent()`,
    );
    try {
      const res = await createAgent('Doomed');
      assert.equal(res.body.errors[0].extensions.code, 'INTERNAL_SERVER_ERROR');
    } finally {
      await app.sql('DROP TRIGGER refuse_agent ON agents');
      await app.sql('DROP FUNCTION refuse_agent()');
    }
    await sleep(500);
    assert.equal(receiver.received.filter(forWebhook(id)).length, 0);
    assert.equal(
      (await app.sql('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [id]))[0].n,
      0,
    );
    assert.equal((await app.sql("SELECT count(*)::int AS n FROM agents WHERE name = 'Doomed'"))[0].n, 0);
  });

  it('an endpoint that always fails gets exactly five attempts on the schedule, none early, then failed', async () => {
    const failing = await new Receiver().start();
    failing.answer = () => ({ status: 500, body: 'nope' });
    try {
      const { id } = await createHook({ events: ['agent.created'] }, failing.url);
      await createAgent('Always failing');
      const got = await failing.waitFor(5, 15_000);
      const deliveryId = String(got[0].headers['x-webhook-id']);
      const delivery = await eventually(async () => {
        const d = await deliveryOf(deliveryId);
        return d.status === 'failed' ? d : undefined;
      });
      assert.deepEqual(
        got.map((r) => r.headers['x-webhook-attempt']),
        ['1', '2', '3', '4', '5'],
      );
      assert.ok(
        got.every((r) => r.headers['x-webhook-id'] === deliveryId),
        'one delivery id throughout',
      );
      const attempts = delivery.attempts.map((a: any) => new Date(a.attempted_at).getTime());
      for (let n = 1; n < 5; n++) {
        const gap = attempts[n] - attempts[n - 1];
        assert.ok(
          gap >= DELAYS[n - 1],
          `attempt ${n + 1} came ${gap} ms after attempt ${n}, before its ${DELAYS[n - 1]} ms`,
        );
        // Nor late: a retry due before the job store's next scan is woken by its worker's timer, not by a poll.
        assert.ok(
          gap < DELAYS[n - 1] + ON_TIME_MS,
          `attempt ${n + 1} came ${gap} ms after attempt ${n}, ${gap - DELAYS[n - 1]} ms after its ${DELAYS[n - 1]} ms`,
        );
      }
      assert.deepEqual(
        delivery.attempts.map((a: any) => [a.number, a.status_code, a.error]),
        [1, 2, 3, 4, 5].map((n) => [n, 500, 'HTTP 500']),
      );
      await sleep(DELAYS[3] + 500);
      assert.equal(failing.received.length, 5, 'nothing after the fifth attempt');
      assert.equal((await api('GET', `/api/webhooks/${id}`)).body.data.hits, 5);
      await assertInFlightCounted(app);
      const list = await api('GET', `/api/webhooks/${id}/deliveries?status=failed`);
      assert.deepEqual(
        list.body.data.records.map((d: any) => d.id),
        [deliveryId],
      );
    } finally {
      await failing.close();
    }
  });

  it('succeeds after failures; a redirect and a hang count as failures', async () => {
    const flaky = await new Receiver().start();
    flaky.answer = (_r, i) =>
      i === 0
        ? { status: 302, headers: { location: 'http://example.com/' } }
        : i === 1
          ? { hang: true }
          : { status: 204 };
    try {
      await createHook({ events: ['agent.created'] }, flaky.url);
      await createAgent('Flaky');
      const got = await flaky.waitFor(3, 15_000);
      const delivery = await eventually(async () => {
        const d = await deliveryOf(String(got[0].headers['x-webhook-id']));
        return d.status === 'succeeded' ? d : undefined;
      });
      assert.deepEqual(
        delivery.attempts.map((a: any) => a.status_code),
        [302, null, 204],
      );
      assert.match(delivery.attempts[0].error, /redirect/);
      assert.match(delivery.attempts[1].error, /timed out/);
      assert.equal(delivery.attempts[2].error, null);
      await assertInFlightCounted(app);
    } finally {
      await flaky.close();
    }
  });

  it('a webhook written by SQL, without the counters the service makes with it, is delivered to all the same', async () => {
    const [{ id }] = await app.sql<{ id: number }>(
      `INSERT INTO webhooks (company_id, title, url, method, list_selection, form_data, events, active, secret_sealed,
         created_at, updated_at)
       SELECT company_id, 'Written by SQL', $1, 'POST', list_selection, form_data, '["agent.created"]', true,
         secret_sealed, now(), now() FROM webhooks WHERE title = 'CRM sync (example)' RETURNING id`,
      [`${receiver.url}/by-sql`],
    );
    assert.deepEqual(await app.sql('SELECT 1 FROM webhook_counters WHERE webhook_id = $1', [id]), []);
    await createAgent('For a webhook written by SQL');
    const [got] = await receiver.waitFor(1, 10_000, forWebhook(id));
    assert.equal(JSON.parse(got.body).data.name, 'For a webhook written by SQL');
    await eventually(async () =>
      (await app.sql('SELECT hits FROM webhook_counters WHERE webhook_id = $1', [id]))[0]?.hits === 1
        ? true
        : undefined,
    );
    await assertInFlightCounted(app);
    await api('DELETE', `/api/webhooks/${id}`);
  });

  it('a 410 switches the webhook off as gone', async () => {
    const gone = await new Receiver().start();
    gone.answer = () => ({ status: 410 });
    try {
      const { id } = await createHook({ events: ['agent.created'] }, gone.url);
      await createAgent('Gone');
      await gone.waitFor(1);
      const hook = await eventually(async () => {
        const h = (await api('GET', `/api/webhooks/${id}`)).body.data;
        return h.active === false ? h : undefined;
      });
      assert.equal(hook.disabled_reason, 'gone');
      await createAgent('After gone');
      await sleep(400);
      assert.equal(gone.received.length, 1, 'an inactive webhook gets no new deliveries');
      await assertInFlightCounted(app);
    } finally {
      await gone.close();
    }
  });

  it('test sends the documented example, resend and recover send again with the same id', async () => {
    const toggling = await new Receiver().start();
    let healthy = false;
    toggling.answer = () => ({ status: healthy ? 200 : 503 });
    try {
      const { id, secret } = await createHook({ events: ['call.ended'], list_selection: 'Contact' }, toggling.url);
      const res = await api('POST', `/api/webhooks/${id}/test`, {});
      assert.equal(res.status, 202, res.text);
      assert.equal(res.body.data.event, 'call.ended');
      assert.equal(res.body.data.status, 'pending');
      const deliveryId = res.body.data.id;
      const [first] = await toggling.waitFor(1);
      const body = JSON.parse(first.body);
      assert.equal(body.data.call_duration, 184);
      assert.deepEqual(body.data.contact, {
        phone_number: '+14155550100',
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: null,
      });
      assert.deepEqual(new StandardWebhook(secret).verify(first.body, first.headers as Record<string, string>), body);
      const failed = await eventually(
        async () => ((await deliveryOf(deliveryId)).status === 'failed' ? true : undefined),
        15_000,
      );
      assert.ok(failed);
      assert.equal((await api('POST', `/api/webhooks/deliveries/${deliveryId}/resend`, {})).status, 202);
      const sixth = await toggling.waitFor(6, 10_000);
      assert.equal(sixth[5].headers['x-webhook-attempt'], '6');
      assert.equal(sixth[5].headers['x-webhook-id'], deliveryId);
      healthy = true;
      await eventually(async () => ((await deliveryOf(deliveryId)).status === 'succeeded' ? true : undefined), 10_000);
      const done = await deliveryOf(deliveryId);
      assert.equal(done.attempts[5].trigger, 'manual');
      assert.equal(done.attempts[6]?.trigger ?? 'scheduled', 'scheduled');

      healthy = false;
      const second = (await api('POST', `/api/webhooks/${id}/test`, { event: 'sms.received' })).body.data.id;
      await eventually(async () => ((await deliveryOf(second)).status === 'failed' ? true : undefined), 15_000);
      healthy = true;
      const since = new Date(Date.now() - 3_600_000).toISOString();
      const recovered = await api('POST', `/api/webhooks/${id}/recover`, { since });
      assert.equal(recovered.status, 202);
      assert.deepEqual(recovered.body.data, { count: 1 });
      await eventually(async () => ((await deliveryOf(second)).status === 'succeeded' ? true : undefined), 10_000);
      const tooLong = await api('POST', `/api/webhooks/${id}/recover`, {
        since: new Date(Date.now() - 15 * 86_400_000).toISOString(),
      });
      assert.equal(tooLong.status, 422);
      // While a delivery is still pending (its receiver hangs), a resend is refused.
      toggling.answer = () => ({ hang: true });
      const pendingResend = await api('POST', `/api/webhooks/${id}/test`, {});
      assert.equal(
        (await api('POST', `/api/webhooks/deliveries/${pendingResend.body.data.id}/resend`, {})).status,
        409,
      );
    } finally {
      await toggling.close();
    }
  });

  it('during a rotation both secrets sign; the old one stops after the grace', async () => {
    const { id, secret: old } = await createHook({ events: ['agent.created'] });
    const rotated = await api('POST', `/api/webhooks/${id}/rotate-secret`, {});
    const fresh = rotated.body.data.secret;
    assert.notEqual(fresh, old);
    assert.ok(new Date(rotated.body.data.previous_secret_expires_at).getTime() > Date.now() + 23 * 3_600_000);
    await createAgent('Rotated');
    const [request] = await receiver.waitFor(1, 10_000, forWebhook(id));
    const headers = request.headers as Record<string, string>;
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    assert.ok(new StandardWebhook(fresh).verify(request.body, headers));
    assert.ok(new StandardWebhook(old).verify(request.body, headers), 'receivers still on the old secret verify');
    assert.ok(verifyBody(fresh, request.body, headers['x-webhook-signature']));
    await app.sql("UPDATE webhooks SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1", [id]);
    await createAgent('After grace');
    const both = await receiver.waitFor(2, 10_000, forWebhook(id));
    const later = both[1].headers as Record<string, string>;
    assert.equal(later['webhook-signature'].split(' ').length, 1);
    assert.throws(() => new StandardWebhook(old).verify(both[1].body, later));
  });

  it('a rate limit spaces the attempts; it is shown, changed and removed', async () => {
    const { id } = await createHook({ events: ['agent.created'], rate_limit: 2 });
    const shown = await api('GET', `/api/webhooks/${id}`);
    assert.equal(shown.body.data.rate_limit, 2);
    assert.equal(shown.body.data.concurrency, 4);
    assert.equal(shown.body.data.paused_until, null);
    await Promise.all(Array.from({ length: 6 }, (_, i) => createAgent(`Paced ${i}`)));
    await receiver.waitFor(6, 15_000, forWebhook(id));
    // A bucket of two, refilled at two a second: the sixth attempt cannot be claimed before two seconds after the first.
    const claims = await app.sql<{ at: number }>(
      'SELECT extract(epoch from a.attempted_at) * 1000 AS at FROM webhook_attempts a JOIN ' +
        'webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = $1 ORDER BY a.attempted_at',
      [id],
    );
    const span = Number(claims[5].at) - Number(claims[0].at);
    assert.ok(span >= 1990, `six attempts at 2/s were claimed within ${span} ms`);
    const cleared = await api('PUT', `/api/webhooks/${id}`, { rate_limit: null });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.data.rate_limit, null);
    // The bucket is forgotten with the limit: a new limit starts full.
    const [row] = await app.sql(
      'SELECT w.rate_limit, c.rate_tokens, c.hits FROM webhooks w JOIN webhook_counters c ON c.webhook_id = w.id WHERE w.id = $1',
      [id],
    );
    assert.deepEqual(row, { rate_limit: null, rate_tokens: null, hits: 6 });
  });

  it("honours a 429's Retry-After: the endpoint is paused until then, and the retry waits for it", async () => {
    const paused = await new Receiver().start();
    paused.answer = (_request, index) =>
      index === 0 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 };
    try {
      const { id } = await createHook({ events: ['agent.created'] }, paused.url);
      await createAgent('Too many');
      const [first] = await paused.waitFor(1);
      const shown = await eventually(
        async () => {
          const res = await api('GET', `/api/webhooks/${id}`);
          return res.body.data.paused_until ? res.body.data : undefined;
        },
        5000,
        'the pause to show',
      );
      const pausedUntil = Date.parse(shown.paused_until);
      assert.ok(pausedUntil - first.at >= 1500 && pausedUntil - first.at <= 3000, `paused until ${shown.paused_until}`);
      const [, second] = await paused.waitFor(2, 10_000);
      // The retry was due 300 ms after the 429, and waited for the pause instead.
      assert.ok(
        second.at >= pausedUntil,
        `retry at ${new Date(second.at).toISOString()}, pause until ${shown.paused_until}`,
      );
      assert.equal(second.headers['webhook-id'], first.headers['webhook-id']);
      assert.equal(shown.concurrency, 2, 'a 429 halves the concurrency');
    } finally {
      await paused.close();
    }
  });

  it('one hanging receiver does not delay another', async () => {
    const stuck = await new Receiver().start();
    stuck.answer = () => ({ hang: true });
    try {
      const { id: stuckId } = await createHook({ events: ['agent.created'] }, stuck.url);
      const { id: fastId } = await createHook({ events: ['agent.created'] });
      for (let i = 0; i < 6; i++) await createAgent(`Crowd ${i}`);
      await receiver.waitFor(6, 10_000, forWebhook(fastId));
      // Every fast delivery arrived while the stuck endpoint's first attempts were still hanging.
      const [{ open }] = await app.sql(
        'SELECT count(*)::int AS open FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = ' +
          'a.delivery_id WHERE d.webhook_id = $1 AND a.finished_at IS NULL',
        [stuckId],
      );
      assert.ok(open >= 1, 'the stuck attempts had not finished');
      assert.ok(
        open <= 4,
        `at most WEBHOOK_ENDPOINT_CONCURRENCY (4) attempts in flight at the stuck endpoint, saw ${open}`,
      );
    } finally {
      await stuck.close();
    }
  });
});

describe('the example receiver (examples/receiver.mjs)', () => {
  it('verifies deliveries of several webhooks, keeps accepting through a rotation with the old secret alone, and refuses a wrong secret', async () => {
    const { spawn } = await import('node:child_process');
    const { id, secret } = await createHook({ events: ['agent.created'] }, 'http://127.0.0.1:1/placeholder');
    const other = await createHook({ events: ['agent.updated'] }, 'http://127.0.0.1:1/placeholder');
    // PORT is the service's; the receiver reads RECEIVER_PORT (0: any free port, which it prints), so both can be exported in one shell.
    const child = spawn(process.execPath, ['examples/receiver.mjs'], {
      env: {
        PATH: process.env.PATH ?? '',
        WEBHOOK_SECRETS: `${secret},${other.secret}`,
        RECEIVER_PORT: '0',
        PORT: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const lines = () =>
      output
        .split('\n')
        .filter((l) => l.startsWith('{"verified"'))
        .map((l) => JSON.parse(l));
    try {
      const port = await eventually(
        async () =>
          (
            JSON.parse(output.split('\n').find((l) => l.includes('"listening"')) ?? 'null') as {
              listening: number;
            } | null
          )?.listening,
        10_000,
        'the receiver',
      );
      await api('PUT', `/api/webhooks/${id}`, { url: `http://127.0.0.1:${port}/hooks` });
      await api('PUT', `/api/webhooks/${other.id}`, { url: `http://127.0.0.1:${port}/hooks` });
      const agent = await createAgent('Example receiver');
      await api('PUT', `/api/agents/${agent.body.data.createAgent.id}`, { name: 'Example receiver, renamed' });
      await eventually(async () => (lines().length >= 2 ? true : undefined), 10_000, 'both deliveries');
      assert.deepEqual(
        lines()
          .map((l) => [l.event, l.verified, l.payloadOk])
          .sort(),
        [
          ['agent.created', true, true],
          ['agent.updated', true, true],
        ],
      );
      // Rotated: the receiver still holds only the old secret, and accepts on the old secret's signature.
      await api('POST', `/api/webhooks/${id}/rotate-secret`, {});
      await createAgent('During the rotation');
      await eventually(async () => (lines().length >= 3 ? true : undefined), 10_000, 'a delivery during the rotation');
      assert.deepEqual([lines()[2].verified, lines()[2].payloadOk], [true, false]);
      // The grace ends: the old secret no longer signs, and the delivery is refused.
      await app.sql('UPDATE webhooks SET previous_secret_sealed = NULL WHERE id = $1', [id]);
      await createAgent('Wrong secret');
      await eventually(async () => (lines().some((l) => !l.verified) ? true : undefined), 10_000, 'a refused delivery');
    } finally {
      child.kill();
    }
  });

  it('says what is wrong when the secret or the port is missing or bad', async () => {
    const { spawnSync } = await import('node:child_process');
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['examples/receiver.mjs'], {
        env: { PATH: process.env.PATH ?? '', ...env },
        encoding: 'utf8',
        timeout: 10_000,
      });
    const noSecret = run({});
    assert.equal(noSecret.status, 64);
    assert.match(noSecret.stderr, /Set WEBHOOK_SECRETS/);
    const badPort = run({ WEBHOOK_SECRETS: 'whsec_abc', RECEIVER_PORT: 'http' });
    assert.equal(badPort.status, 64);
    assert.match(badPort.stderr, /RECEIVER_PORT must be a port number \(got "http"\)/);
  });
});

describe('webhook metrics and logs', () => {
  it('count attempts by outcome, time the first attempt, report what is due, and log each attempt without the secret or body', async () => {
    const { id, secret } = await createHook({ events: ['agent.created'] });
    await createAgent('Observed');
    const [request] = await receiver.waitFor(1, 10_000, forWebhook(id));
    const deliveryId = String(request.headers['webhook-id']);
    await eventually(async () => ((await deliveryOf(deliveryId)).status === 'succeeded' ? true : undefined));
    const metrics = (await app.request('GET', '/metrics')).text;
    assert.match(metrics, /webhook_attempts_total\{outcome="success"\} [1-9]/);
    assert.match(
      metrics,
      /webhook_attempts_total\{outcome="http_5xx"\} [1-9]/,
      'the failing endpoints of earlier tests',
    );
    assert.match(metrics, /webhook_first_attempt_latency_seconds_count [1-9]/);
    assert.match(metrics, /webhook_deliveries_due \d+/);
    assert.match(metrics, /webhook_oldest_due_seconds \d/);
    const lines = logs.filter((line) => line.includes(deliveryId));
    assert.equal(lines.filter((line) => line.includes('"message":"webhook attempt"')).length, 1);
    const line = JSON.parse(lines.find((l) => l.includes('"message":"webhook attempt"'))!);
    assert.equal(line.attempt, 1);
    assert.equal(line.statusCode, 200);
    assert.equal(line.event, 'agent.created');
    const all = logs.join('\n');
    assert.ok(!all.includes(secret), 'no secret in the logs');
    assert.ok(!all.includes(secret.slice(6, 26)));
    assert.ok(!all.includes('"name":"Observed"'), 'no payload in the logs');
  });
});

describe('webhook upkeep', () => {
  it('switches off a webhook whose every delivery has failed for WEBHOOK_DISABLE_AFTER, as failing', async () => {
    const failing = await new Receiver().start();
    failing.answer = () => ({ status: 500 });
    try {
      const { id } = await createHook({ events: ['agent.created'] }, failing.url);
      // Failing since long ago (a success would have cleared it).
      await app.sql("UPDATE webhooks SET failing_since = now() - interval '6 days' WHERE id = $1", [id]);
      await createAgent('Failing for days');
      const hook = await eventually(async () => {
        const h = (await api('GET', `/api/webhooks/${id}`)).body.data;
        return h.active === false ? h : undefined;
      });
      assert.equal(hook.disabled_reason, 'failing');
      assert.equal(failing.received.length, 1, 'no retry after the switch-off');
      const [{ status }] = await app.sql('SELECT status FROM webhook_deliveries WHERE webhook_id = $1', [id]);
      assert.notEqual(status, 'pending', 'the delivery is not left pending');
    } finally {
      await failing.close();
    }
  });

  it('a success clears the failing clock', async () => {
    const { id } = await createHook({ events: ['agent.created'] });
    await app.sql("UPDATE webhooks SET failing_since = now() - interval '1 day' WHERE id = $1", [id]);
    await createAgent('Back to health');
    await receiver.waitFor(1, 10_000, forWebhook(id));
    await eventually(async () =>
      (await app.sql('SELECT failing_since FROM webhooks WHERE id = $1', [id]))[0].failing_since === null
        ? true
        : undefined,
    );
  });

  it('purges deliveries older than the retention by dropping their partitions, never pending ones', async () => {
    const { id } = await createHook({ events: ['agent.created'] });
    await api('POST', `/api/webhooks/${id}/test`, {});
    await receiver.waitFor(1, 10_000, forWebhook(id));
    await eventually(async () =>
      (await app.sql("SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'", [id])).length
        ? true
        : undefined,
    );
    // A delivery left pending with one failed attempt, its webhook then paused: it must outlive its partition.
    const failing = await createHook({ events: ['agent.created'] }, 'http://127.0.0.1:9/refused');
    const sent = await api('POST', `/api/webhooks/${failing.id}/test`, {});
    assert.equal(sent.status, 202, sent.text);
    const [held] = await eventually(async () => {
      const rows = await app.sql<{ id: string }>(
        "SELECT id FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending' AND attempt_count = 1 AND lease_token IS NULL",
        [failing.id],
      );
      return rows.length ? rows : undefined;
    });
    await app.sql("UPDATE webhooks SET paused_until = now() + interval '1 hour' WHERE id = $1", [failing.id]);
    // The retention (30 days) and a partition's span (4 days) past now: every partition made so far is wholly past it.
    const purged = await app.running.services.deliverer.purge(new Date(Date.now() + 40 * 86_400_000));
    assert.ok(purged.partitions >= 3, JSON.stringify(purged));
    assert.equal(
      (await app.sql('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [id]))[0].n,
      0,
    );
    assert.equal(
      (
        await app.sql(
          'SELECT count(*)::int AS n FROM webhook_attempts a LEFT JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.id IS NULL',
        )
      )[0].n,
      0,
      'attempts go with them',
    );
    const kept = await app.sql<{ status: string; part: string }>(
      'SELECT status, tableoid::regclass::text AS part FROM webhook_deliveries WHERE id = $1',
      [held.id],
    );
    assert.deepEqual(kept, [{ status: 'pending', part: 'webhook_deliveries_default' }]);
    const attempts = await app.sql<{ number: number; part: string }>(
      'SELECT number, tableoid::regclass::text AS part FROM webhook_attempts WHERE delivery_id = $1',
      [held.id],
    );
    assert.deepEqual(attempts, [{ number: 1, part: 'webhook_attempts_default' }], 'its attempt is kept with it');
    const read = await api('GET', `/api/webhooks/deliveries/${held.id}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.data.attempts.length, 1);
    await api('DELETE', `/api/webhooks/${failing.id}`);
  });

  it('purges events older than the retention, except one a kept delivery was made of (found by its subjects)', async () => {
    const paused = await createHook({ events: ['agent.created'] });
    await app.sql("UPDATE webhooks SET paused_until = now() + interval '1 hour' WHERE id = $1", [paused.id]);
    const agent = await createAgent('Kept with its delivery');
    const agentId = agent.body.data.createAgent.id;
    const [kept] = await eventually(async () => {
      const rows = await app.sql<{ id: string; event_id: string }>(
        'SELECT id, event_id FROM webhook_deliveries WHERE webhook_id = $1',
        [paused.id],
      );
      return rows.length ? rows : undefined;
    });
    const [orphan] = await app.sql<{ id: string }>(
      `INSERT INTO events (id, company_id, type, data, occurred_at, subjects) SELECT 'evt_' || md5(random()::text), company_id,
         'agent.created', '{}', now() - interval '31 days', '{}' FROM webhooks WHERE id = $1 RETURNING id`,
      [paused.id],
    );
    await app.running.services.deliverer.purge(new Date(Date.now() + 40 * 86_400_000));
    assert.deepEqual(
      (await app.sql('SELECT id FROM events WHERE id = ANY($1) ORDER BY id', [[kept.event_id, orphan.id]])).map(
        (r) => r.id,
      ),
      [kept.event_id],
      'the pending delivery keeps its event; an event with no delivery goes',
    );
    const bySubject = await api('GET', `/api/webhooks/deliveries?agent_id=${agentId}`);
    assert.equal(bySubject.status, 200, bySubject.text);
    // Every delivery of that agent's event (other webhooks of this file take agent.created too), the kept one among them.
    const found = bySubject.body.data.records.map((d: { id: string }) => d.id);
    assert.ok(found.includes(kept.id), JSON.stringify(found));
    assert.deepEqual(await app.sql('SELECT DISTINCT event_id FROM webhook_deliveries WHERE id = ANY($1)', [found]), [
      { event_id: kept.event_id },
    ]);
    await api('DELETE', `/api/webhooks/${paused.id}`);
  });
});
