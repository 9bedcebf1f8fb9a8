import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { toBase64Id } from '../src/kernel/ids.js';
import { playScenario } from '../src/telco/scenarios.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually, Receiver } from './helpers/receiver.js';

// Payload filters: set over GraphQL and REST, checked at save against the
// event's data schema (a bad path or value is 422 naming it, and nothing
// changes), evaluated in the outbox so a turned-away event makes no delivery
// row, counted in /metrics and listed as filtered; the real provider callbacks
// (the simulator's scenarios) cause the events, a real receiver gets them.

let app: TestApp;
let owner: string;
let receiver: Receiver;

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  receiver = await new Receiver().start();
});
after(async () => {
  await receiver.close();
  await app.close();
});

/** Inbound calls over a minute whose sentiment is neutral or negative. */
const LONG_UNHAPPY_INBOUND = {
  and: [
    { path: 'call_direction', eq: 'inbound' },
    { path: 'call_duration', gt: 60 },
    {
      or: [
        { path: 'sentiment', eq: 'negative' },
        { path: 'sentiment', eq: 'neutral' },
      ],
    },
  ],
};

const storedFilters = async (id: number) =>
  (await app.sql('SELECT filters FROM webhooks WHERE id = $1', [id]))[0].filters;
const filteredMetric = async (event: string) => {
  const text = (await app.request('GET', '/metrics')).text;
  return Number(
    text.match(
      new RegExp(`^webhook_events_filtered_total\\{event="${event.replace('.', '\\.')}"\\} (\\d+)`, 'm'),
    )?.[1] ?? 0,
  );
};

describe('payload filters', () => {
  it('deliver only the events a filter accepts; the others make no delivery, are counted and listed as filtered', async () => {
    const created = await app.graphql(
      'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id filters { event filter } } secret } }',
      {
        input: {
          title: 'Unhappy callers',
          url: `${receiver.url}/unhappy`,
          events: ['call_ended', 'agent_created'],
          filters: [{ event: 'call_ended', filter: LONG_UNHAPPY_INBOUND }],
        },
      },
      owner,
    );
    assert.equal(created.body.errors, undefined, created.text);
    const hook = { ...created.body.data.createWebhook.webhook, secret: created.body.data.createWebhook.secret };
    assert.deepEqual(hook.filters, [{ event: 'call_ended', filter: LONG_UNHAPPY_INBOUND }]);
    const metricBefore = await filteredMetric('call.ended');

    const account = await app.providerAccount();
    const [number] = await app.sql('SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1', [
      account.companyId,
    ]);
    const options = { url: app.url, accountSid: account.sid, authToken: account.authToken, number: number.phone_no };
    await playScenario('inbound-call', options); // inbound, 184 s, positive: turned away
    await playScenario('outbound-call', options); // outbound: turned away
    await playScenario('missed-call', options); // no answer, 0 s: turned away
    const transferSid = await playScenario('transfer', options); // inbound, 240 s, neutral: delivered
    await app.request('POST', '/api/agents', { token: owner, body: { name: 'Unfiltered Una' } }); // no filter for agent.created

    const mine = (r: { path: string }) => r.path === '/unhappy';
    const got = await receiver.waitFor(2, 10_000, mine);
    const events = got.map(
      (r) =>
        new StandardWebhook(hook.secret).verify(r.body, r.headers as Record<string, string>) as {
          event: string;
          data: Record<string, unknown>;
        },
    );
    const ended = events.find((e) => e.event === 'call.ended')!;
    assert.equal(ended.data.call_direction, 'inbound');
    assert.equal(ended.data.call_duration, 240);
    assert.equal(ended.data.sentiment, 'neutral');
    const [transfer] = await app.sql('SELECT id FROM calls WHERE provider_call_id = $1', [transferSid]);
    assert.equal(ended.data.call_id, String(transfer.id));
    assert.ok(events.some((e) => e.event === 'agent.created'));

    // The three turned away: no delivery row, kept in the event store as filtered by this webhook.
    const deliveries = await app.sql(
      "SELECT event FROM webhook_deliveries WHERE webhook_id = $1 AND event = 'call.ended'",
      [hook.id],
    );
    assert.equal(deliveries.length, 1);
    const filtered = await app.sql(
      "SELECT data->>'call_duration' AS duration FROM events WHERE $1 = ANY(filtered_by) AND type = 'call.ended' ORDER BY id",
      [hook.id],
    );
    assert.deepEqual(
      filtered.map((r) => r.duration),
      ['184', '95', '0'],
    );
    await eventually(
      async () => ((await filteredMetric('call.ended')) - metricBefore === 3 ? true : undefined),
      5000,
      'the filtered counter',
    );

    const rest = await app.request('GET', `/api/webhooks/${hook.id}/filtered-events?per_page=2`, { token: owner });
    assert.equal(rest.status, 200, rest.text);
    assert.equal(rest.body.data.pagination.total, 3);
    const records = rest.body.data.records;
    assert.deepEqual(
      records.map((e: { data: { call_duration: number } }) => e.data.call_duration),
      [0, 95],
    );
    assert.equal(records[0].event, 'call.ended');
    assert.match(records[0].id, /^evt_[0-9A-Z]{26}$/);
    assert.deepEqual(
      Object.keys(records[0].data.contact).sort(),
      ['first_name', 'last_name', 'phone_number'],
      'the contact as the webhook carries it (Basic)',
    );
    const gql = await app.graphql(
      'query($id: ID!) { webhookFilteredEvents(id: $id) { records { event occurredAt data } pagination { total } } }',
      { id: toBase64Id(hook.id) },
      owner,
    );
    assert.equal(gql.body.data.webhookFilteredEvents.pagination.total, 3);
    assert.equal(gql.body.data.webhookFilteredEvents.records[2].data.call_direction, 'inbound');

    // Unsubscribing from call.ended drops its filter; the webhook's agent.created deliveries go on.
    const changed = await app.request('PUT', `/api/webhooks/${hook.id}`, {
      token: owner,
      body: { events: ['agent.created'] },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body.data.filters, []);
    assert.deepEqual(await storedFilters(hook.id), {});
  });

  it('on a list field, eq matches any element; filters set over REST use the event names', async () => {
    const created = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: {
        title: 'Bookings',
        url: `${receiver.url}/bookings`,
        events: ['call.ended'],
        filters: [{ event: 'call.ended', filter: { path: 'tags', eq: 'appointment' } }],
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.data.filters, [{ event: 'call.ended', filter: { path: 'tags', eq: 'appointment' } }]);
    const account = await app.providerAccount();
    const [number] = await app.sql('SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1', [
      account.companyId,
    ]);
    const options = { url: app.url, accountSid: account.sid, authToken: account.authToken, number: number.phone_no };
    await playScenario('inbound-call', options); // tags [question]
    await playScenario('inbound-call', { ...options, book: true }); // tags [appointment]
    const [got] = await receiver.waitFor(1, 10_000, (r) => r.path === '/bookings');
    assert.deepEqual(JSON.parse(got.body).data.tags, ['appointment']);
    await eventually(
      async () =>
        (await app.sql('SELECT count(*)::int AS n FROM events WHERE $1 = ANY(filtered_by)', [created.body.data.id]))[0]
          .n === 1
          ? true
          : undefined,
      5000,
      'one filtered',
    );
    assert.equal(
      (
        await app.sql('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [created.body.data.id])
      )[0].n,
      1,
    );
  });

  it('refuses a bad filter naming the path or the node, and changes nothing', async () => {
    const created = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: {
        title: 'Strict filters',
        url: `${receiver.url}/strict`,
        events: ['call.ended', 'sms.received'],
        filters: [{ event: 'call.ended', filter: { path: 'call_duration', gte: 30 } }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const before = await storedFilters(id);
    const deep = (n: number): unknown => (n === 0 ? { path: 'call_duration', gt: 1 } : { not: deep(n - 1) });
    const cases: Array<[unknown, string, RegExp]> = [
      [
        { event: 'call.ended', filter: { path: 'call_lenght', gt: 60 } },
        'filters.0.filter',
        /call_lenght is not in the data of call\.ended/,
      ],
      [
        {
          event: 'call.ended',
          filter: {
            and: [
              { path: 'call_direction', eq: 'inbound' },
              { path: 'call_duration', eq: 'long' },
            ],
          },
        },
        'filters.0.filter.and.1',
        /call_duration is a integer; "long" is not/,
      ],
      [
        { event: 'call.ended', filter: { path: 'call_direction', in: ['inbound', 'sideways'] } },
        'filters.0.filter',
        /one of inbound, outbound; "sideways" is not/,
      ],
      [
        { event: 'call.ended', filter: { path: 'caller_number', gt: 5 } },
        'filters.0.filter',
        /compares numbers and date-times only/,
      ],
      [
        { event: 'call.ended', filter: { path: 'recording_url.host', eq: 'x' } },
        'filters.0.filter',
        /recording_url\.host is not in the data/,
      ],
      [
        { event: 'call.ended', filter: { path: 'contact.shoe_size', eq: 'x' } },
        'filters.0.filter',
        /contact\.shoe_size is not in the data/,
      ],
      [
        { event: 'call.ended', filter: { path: 'call_duration', between: [1, 2] } },
        'filters.0.filter',
        /exactly one of eq, ne/,
      ],
      [{ event: 'call.ended', filter: { path: 'call_duration', gt: 1, lt: 9 } }, 'filters.0.filter', /exactly one of/],
      [{ event: 'call.ended', filter: { or: [] } }, 'filters.0.filter', /or takes a list of one or more/],
      [
        { event: 'call.ended', filter: { path: 'sentiment', exists: 'yes' } },
        'filters.0.filter',
        /exists takes true or false/,
      ],
      [{ event: 'call.ended', filter: deep(5) }, 'filters.0.filter.not.not.not.not.not', /at most 5 levels deep/],
      [
        { event: 'call.ended', filter: { or: Array.from({ length: 50 }, () => ({ path: 'call_duration', gt: 1 })) } },
        'filters.0.filter',
        /at most 50 nodes; this one has 51/,
      ],
      [
        { event: 'agent.created', filter: { path: 'name', eq: 'x' } },
        'filters.0.event',
        /not subscribed to agent\.created/,
      ],
      [
        { event: 'call.sideways', filter: { path: 'x', eq: 1 } },
        'filters.0.event',
        /does not accept "call.sideways"; it accepts "call.started", .* or "delivery.exhausted"\./,
      ],
    ];
    for (const [entry, field, pattern] of cases) {
      const res = await app.request('PUT', `/api/webhooks/${id}`, {
        token: owner,
        body: { title: 'Changed', filters: [entry] },
      });
      assert.equal(res.status, 422, `${JSON.stringify(entry)}: ${res.text}`);
      assert.match(res.body.errors?.[field]?.[0] ?? '', pattern, `${field}: ${res.text}`);
    }
    const twice = await app.request('PUT', `/api/webhooks/${id}`, {
      token: owner,
      body: {
        filters: [
          { event: 'sms.received', filter: { path: 'body', ne: '' } },
          { event: 'sms.received', filter: { path: 'body', eq: 'STOP' } },
        ],
      },
    });
    assert.match(twice.body.errors['filters.1.event'][0], /repeats sms\.received/);
    assert.deepEqual(await storedFilters(id), before);
    assert.equal((await app.sql('SELECT title FROM webhooks WHERE id = $1', [id]))[0].title, 'Strict filters');

    const gql = await app.graphql(
      'mutation($id: ID!, $f: JSONObject!) { updateWebhook(id: $id, input: { filters: [{ event: call_ended, filter: $f }] }) { id } }',
      { id: String(id), f: { path: 'nope', eq: 1 } },
      owner,
    );
    assert.deepEqual(Object.keys(gql.body.errors[0].extensions.errors), ['filters.0.filter']);
  });

  it('tests a filter against the example payload or given data, refusing a bad one the same way', async () => {
    const test = (event: string, filter: unknown, data?: unknown) =>
      app.graphql(
        'query($e: WebhookEvent!, $f: JSONObject!, $d: JSONObject) { testWebhookFilter(event: $e, filter: $f, data: $d) { matches } }',
        { e: event, f: filter, d: data },
        owner,
      );
    // The call.ended example: inbound, 184 s, positive, tags [appointment, new-patient].
    assert.equal(
      (
        await test('call_ended', {
          and: [
            { path: 'call_duration', gt: 60 },
            { path: 'tags', in: ['new-patient'] },
          ],
        })
      ).body.data.testWebhookFilter.matches,
      true,
    );
    assert.equal((await test('call_ended', LONG_UNHAPPY_INBOUND)).body.data.testWebhookFilter.matches, false);
    assert.equal(
      (await test('call_ended', { not: { path: 'contact.email', exists: true } })).body.data.testWebhookFilter.matches,
      true,
    );
    assert.equal(
      (await test('call_ended', { path: 'custom_fields.source', eq: 'google-ads' })).body.data.testWebhookFilter
        .matches,
      true,
    );
    assert.equal((await test('sms_received', { path: 'body', ne: 'STOP' })).body.data.testWebhookFilter.matches, true);

    const rest = await app.request('POST', '/api/webhooks/filters/test', {
      token: owner,
      body: {
        event: 'call.ended',
        filter: LONG_UNHAPPY_INBOUND,
        data: { call_direction: 'inbound', call_duration: 61, sentiment: 'negative' },
      },
    });
    assert.equal(rest.status, 200, rest.text);
    assert.deepEqual(rest.body.data, { matches: true });
    const dated = await app.request('POST', '/api/webhooks/filters/test', {
      token: owner,
      body: { event: 'call.started', filter: { path: 'started_at', gte: '2026-11-18T16:00:00Z' } },
    });
    assert.deepEqual(dated.body.data, { matches: true });
    const bad = await app.request('POST', '/api/webhooks/filters/test', {
      token: owner,
      body: { event: 'call.started', filter: { path: 'started_at', gte: 'yesterday' } },
    });
    assert.equal(bad.status, 422);
    assert.match(bad.body.errors.filter[0], /started_at is a date-time; gte takes an ISO 8601 date-time/);
    const noFilter = await app.request('POST', '/api/webhooks/filters/test', {
      token: owner,
      body: { event: 'call.started' },
    });
    assert.equal(noFilter.status, 422, noFilter.text);
  });

  it('each operator over given data: missing and null values, list fields, numbers and date-times, and, or, not', async () => {
    const data = { call_direction: 'inbound', call_duration: 61, sentiment: null, tags: ['appointment', 'vip'] };
    const cases: Array<[unknown, boolean, string?]> = [
      [{ path: 'call_direction', eq: 'inbound' }, true],
      [{ path: 'call_direction', eq: 'outbound' }, false],
      [{ path: 'tags', eq: 'vip' }, true],
      [{ path: 'tags', ne: 'vip' }, false],
      [{ path: 'tags', ne: 'spam' }, true],
      [{ path: 'disposition', ne: 'x' }, true],
      [{ path: 'disposition', eq: 'x' }, false],
      [{ path: 'tags', in: ['spam', 'vip'] }, true],
      [{ path: 'tags', nin: ['spam', 'vip'] }, false],
      [{ path: 'call_direction', nin: ['outbound'] }, true],
      [{ path: 'disposition', in: ['x'] }, false],
      [{ path: 'sentiment', exists: false }, true],
      [{ path: 'sentiment', exists: true }, false],
      [{ path: 'call_duration', exists: true }, true],
      [{ path: 'call_duration', gt: 60 }, true],
      [{ path: 'call_duration', gt: 61 }, false],
      [{ path: 'call_duration', gte: 61 }, true],
      [{ path: 'call_duration', lt: 61 }, false],
      [{ path: 'call_duration', lte: 61 }, true],
      [{ path: 'started_at', lt: '2026-11-18T17:00:00+01:00' }, false, 'call.started'],
      [{ path: 'started_at', lte: '2026-11-18T17:00:00+01:00' }, true, 'call.started'],
      [{ path: 'started_at', gt: '2026-11-18T15:59:59Z' }, true, 'call.started'],
      [
        {
          and: [
            { path: 'call_direction', eq: 'inbound' },
            { path: 'call_duration', gt: 100 },
          ],
        },
        false,
      ],
      [
        {
          or: [
            { path: 'call_direction', eq: 'outbound' },
            { path: 'call_duration', gt: 60 },
          ],
        },
        true,
      ],
      [
        {
          not: {
            or: [
              { path: 'tags', eq: 'spam' },
              { path: 'sentiment', exists: true },
            ],
          },
        },
        true,
      ],
    ];
    for (const [filter, expected, event = 'call.ended'] of cases) {
      const given = event === 'call.started' ? { started_at: '2026-11-18T16:00:00Z' } : data;
      const res = await app.request('POST', '/api/webhooks/filters/test', {
        token: owner,
        body: { event, filter, data: given },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.matches, expected, JSON.stringify(filter));
    }
  });

  it("filtered events: each id form of the webhook; another company's webhook and a malformed id are 404", async () => {
    const mine = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: 'Ids', url: `${receiver.url}/ids`, events: ['agent.created'] },
    });
    const gamma = await app.login('owner@gamma.test');
    const theirs = await app.request('POST', '/api/webhooks', {
      token: gamma,
      body: { title: 'Theirs', url: `${receiver.url}/theirs`, events: ['agent.created'] },
    });
    const id = mine.body.data.id as number;
    for (const form of [String(id), toBase64Id(id), app.running.services.ids.encrypt('webhook', id)]) {
      const res = await app.request('GET', `/api/webhooks/${encodeURIComponent(form)}/filtered-events`, {
        token: owner,
      });
      assert.equal(res.status, 200, `${form}: ${res.text}`);
      assert.equal(res.body.data.pagination.total, 0);
    }
    for (const raw of [String(theirs.body.data.id), toBase64Id(theirs.body.data.id), 'not-an-id!', '987654']) {
      const res = await app.request('GET', `/api/webhooks/${encodeURIComponent(raw)}/filtered-events`, {
        token: owner,
      });
      assert.equal(res.status, 404, `${raw}: ${res.text}`);
      assert.match(res.body.message, /not found\.$/);
    }
  });
});
