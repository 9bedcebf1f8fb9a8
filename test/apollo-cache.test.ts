import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { playScenario } from '../src/telco/scenarios.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// Apollo Client 4 with its normalized cache (InMemoryCache) against the
// running service, as a GraphQL dashboard uses it: a mutation's answer
// updates every cached query that holds the same record (one typename and
// id per record), with no refetch. Every request the client sends is
// counted by operation name.

let app: TestApp;
let client: ApolloClient;
const sent: string[] = [];

before(async () => {
  app = await startTestApp();
  const token = await app.login('owner@acme.test');
  const counting: typeof fetch = async (input, init) => {
    sent.push(JSON.parse(String(init?.body)).operationName);
    return fetch(input, init);
  };
  client = new ApolloClient({
    link: new HttpLink({ uri: `${app.url}/graphql`, headers: { authorization: `Bearer ${token}` }, fetch: counting }),
    cache: new InMemoryCache(),
  });
});
after(async () => {
  client?.stop();
  await app?.close();
});

const APPOINTMENTS = gql`
  query Appointments {
    appointmentCalls(filter: { dateRange: Today }, perPage: 100) { records { id appointment appointmentAt status } }
  }
`;
const WEBHOOKS = gql`
  query Hooks {
    webhooks(perPage: 100) { records { id title active } pagination { total } }
  }
`;

describe('Apollo Client: the normalized cache stays right without refetching', () => {
  it("a booking moves the cached dashboard row's appointment, and the cached details of the same call", async () => {
    const account = await app.providerAccount();
    const [{ phone_no: number }] = await app.sql(
      'SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1',
      [account.companyId],
    );
    const sid = await playScenario('inbound-call', {
      url: app.url,
      accountSid: account.sid,
      authToken: account.authToken,
      number,
      book: true,
    });
    const [{ id }] = await app.sql('SELECT id FROM calls WHERE provider_call_id = $1', [sid]);

    const { data } = await client.query<{
      appointmentCalls: { records: Array<{ id: number; appointmentAt: string }> };
    }>({ query: APPOINTMENTS });
    assert.ok(
      data!.appointmentCalls.records.some((r) => r.id === id),
      'the booked call is on the dashboard',
    );
    // The call's details page too: the same Call in the cache as the dashboard row.
    const DETAILS = gql`query Details($id: ID!) { callDetails(id: $id) { id appointment appointmentAt summary } }`;
    await client.query({ query: DETAILS, variables: { id: String(id) } });
    const moved = new Date(Date.now() + 5 * 86_400_000);
    moved.setUTCMilliseconds(0);
    await client.mutate({
      mutation: gql`mutation Book($id: ID!, $at: String!) { bookCallAppointment(id: $id, appointmentAt: $at) { id appointment appointmentAt status } }`,
      variables: { id: String(id), at: moved.toISOString() },
    });
    const cached = client.readQuery<{ appointmentCalls: { records: Array<{ id: number; appointmentAt: string }> } }>({
      query: APPOINTMENTS,
    });
    assert.equal(
      cached!.appointmentCalls.records.find((r) => r.id === id)!.appointmentAt,
      moved.toISOString(),
      'the cached row shows the new time',
    );
    const details = client.readQuery<{ callDetails: { appointmentAt: string; summary: string | null } }>({
      query: DETAILS,
      variables: { id: String(id) },
    });
    assert.equal(
      details!.callDetails.appointmentAt,
      moved.toISOString(),
      'the cached details show the new time: one typename per call',
    );
    assert.deepEqual(
      sent.filter((name) => name === 'Appointments' || name === 'Details'),
      ['Appointments', 'Details'],
      'each was fetched once',
    );
  });

  it('a created webhook joins the cached list through the cache, and a rename updates it in place', async () => {
    await client.query({ query: WEBHOOKS });
    const created = await client.mutate<{
      createWebhook: { webhook: { id: number; title: string; active: boolean }; secret: string };
    }>({
      mutation: gql`mutation Create($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id title active } secret } }`,
      variables: { input: { title: 'Cached hook', url: 'http://127.0.0.1:9/cached', events: ['agent_created'] } },
      // The created record is in the answer, so the list takes it from the cache: no refetch.
      update(cache, { data }) {
        cache.modify({
          fields: {
            webhooks(value, { toReference }) {
              const existing = value as { records: unknown[]; pagination: { total: number } };
              return {
                ...existing,
                records: [toReference(data!.createWebhook.webhook), ...existing.records],
                pagination: { ...existing.pagination, total: existing.pagination.total + 1 },
              };
            },
          },
        });
      },
    });
    const id = created.data!.createWebhook.webhook.id;
    let list = client.readQuery<{
      webhooks: { records: Array<{ id: number; title: string }>; pagination: { total: number } };
    }>({ query: WEBHOOKS })!;
    assert.equal(list.webhooks.records[0].title, 'Cached hook');
    const [{ n }] = await app.sql<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhooks w JOIN companies c ON c.id = w.company_id WHERE c.name = $1',
      ['Acme Agency'],
    );
    assert.equal(list.webhooks.pagination.total, n);

    await client.mutate({
      mutation: gql`mutation Rename($id: ID!, $input: WebhookInput!) { updateWebhook(id: $id, input: $input) { id title } }`,
      variables: { id: String(id), input: { title: 'Cached hook, renamed' } },
    });
    list = client.readQuery<typeof list>({ query: WEBHOOKS })!;
    assert.equal(list.webhooks.records.find((r) => r.id === id)!.title, 'Cached hook, renamed');
    assert.deepEqual(
      sent.filter((name) => name === 'Hooks'),
      ['Hooks'],
      'the list was fetched once',
    );
  });

  it('the signed-in user has an id, so me is one cache entry', async () => {
    const { data } = await client.query<{ me: { id: string; user: { email: string } } }>({
      query: gql`query Me { me { id user { email } } }`,
    });
    assert.equal(data!.me.user.email, 'owner@acme.test');
    const entries = client.cache.extract() as Record<string, unknown>;
    assert.ok(
      entries[`Me:${data!.me.id}`],
      `a normalized entry Me:${data!.me.id}, among ${Object.keys(entries).join(', ')}`,
    );
    assert.deepEqual((entries.ROOT_QUERY as Record<string, unknown>).me, { __ref: `Me:${data!.me.id}` });
  });

  it('a webhook create without its required fields does not validate, where an update may leave any out', async () => {
    const token = await app.login('owner@acme.test');
    const res = await app.graphql(
      'mutation { createWebhook(input: { title: "No url" }) { webhook { id } } }',
      {},
      token,
    );
    assert.equal(res.body.errors[0].extensions.code, 'GRAPHQL_VALIDATION_FAILED');
    assert.match(
      res.body.errors.map((e: { message: string }) => e.message).join(' '),
      /Field "CreateWebhookInput.url" of required type "String!" was not provided/,
    );
    assert.match(
      res.body.errors.map((e: { message: string }) => e.message).join(' '),
      /Field "CreateWebhookInput.events" of required type "\[WebhookEvent!\]!" was not provided/,
    );
    assert.equal((await app.sql("SELECT count(*)::int AS n FROM webhooks WHERE title = 'No url'"))[0].n, 0);
  });
});

describe('Apollo Client: the dashboard summary, a value keyed by what it is of', () => {
  it('built the obvious way (no type policy), two queries of one range share its cache entry without a warning', async () => {
    const warnings: unknown[] = [];
    const warn = console.warn;
    const error = console.error;
    console.warn = (...args: unknown[]) => void warnings.push(args);
    console.error = (...args: unknown[]) => void warnings.push(args);
    const token = await app.login('owner@acme.test');
    const plain = new ApolloClient({
      link: new HttpLink({ uri: `${app.url}/graphql`, headers: { authorization: `Bearer ${token}` } }),
      cache: new InMemoryCache(),
    });
    try {
      const totals = gql`
        query Totals { dashboardSummary(filter: { dateRange: Last_Year }) { id calls sentiment { id positive } } }
      `;
      const durations = gql`
        query Durations { dashboardSummary(filter: { dateRange: Last_Year }) { id averageDuration sentiment { id negative } } }
      `;
      const first = (await plain.query({ query: totals })).data as { dashboardSummary: { id: string; calls: number } };
      const second = (await plain.query({ query: durations })).data as { dashboardSummary: { id: string } };
      assert.equal(first.dashboardSummary.id, second.dashboardSummary.id, 'one question, one id');
      const cached = plain.readQuery({ query: totals }) as { dashboardSummary: { calls: number } } | null;
      assert.equal(cached?.dashboardSummary.calls, first.dashboardSummary.calls, 'the first fields are still cached');
      // Another range is another summary.
      const month = (
        await plain.query({
          query: gql`query Month { dashboardSummary(filter: { dateRange: Last_30_Days }) { id calls } }`,
        })
      ).data as { dashboardSummary: { id: string } };
      assert.notEqual(month.dashboardSummary.id, first.dashboardSummary.id);
      assert.deepEqual(
        warnings.filter((w) => /Cache data may be lost/.test(JSON.stringify(w))),
        [],
      );
    } finally {
      console.warn = warn;
      console.error = error;
      plain.stop();
    }
  });

  it('with the documented type policy, two queries of one range share its cache entry and Apollo warns of no lost data', async () => {
    const warnings: unknown[] = [];
    const warn = console.warn;
    const error = console.error;
    console.warn = (...args: unknown[]) => void warnings.push(args);
    console.error = (...args: unknown[]) => void warnings.push(args);
    const token = await app.login('owner@acme.test');
    // docs/api.md, Caching with Apollo Client: the summary and its counts are merged, not replaced.
    const summaryClient = new ApolloClient({
      link: new HttpLink({ uri: `${app.url}/graphql`, headers: { authorization: `Bearer ${token}` } }),
      cache: new InMemoryCache({
        typePolicies: { DashboardSummary: { merge: true }, SentimentCounts: { merge: true } },
      }),
    });
    try {
      const totals = gql`
        query Totals { dashboardSummary(filter: { dateRange: Last_Year }) { calls appointments sentiment { positive } } }
      `;
      const durations = gql`
        query Durations { dashboardSummary(filter: { dateRange: Last_Year }) { averageDuration sentiment { negative } } }
      `;
      const first = await summaryClient.query({ query: totals });
      const second = await summaryClient.query({ query: durations });
      const cached = summaryClient.readQuery({ query: totals }) as { dashboardSummary: { calls: number } } | null;
      assert.equal(
        cached?.dashboardSummary.calls,
        (first.data as { dashboardSummary: { calls: number } }).dashboardSummary.calls,
        'the first fields are still cached',
      );
      assert.equal(
        typeof (second.data as { dashboardSummary: { averageDuration: number } }).dashboardSummary.averageDuration,
        'number',
      );
      assert.deepEqual(
        warnings.filter((w) => /Cache data may be lost/.test(JSON.stringify(w))),
        [],
      );
    } finally {
      console.warn = warn;
      console.error = error;
      summaryClient.stop();
    }
  });
});
