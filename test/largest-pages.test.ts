import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BOUNDS } from '../src/kernel/bounds.js';
import { GRAPHQL_LIMITS } from '../src/graphql/limits.js';
import { routeTable } from '../src/rest/routes/index.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// Every list answers its largest page: each REST list route and its GraphQL
// operation asked for per_page=100 over records made as large as the API
// allows (webhooks with every event, a filter each, the most headers at
// their longest; contacts with every tag and custom field at their longest;
// roles with every permission; do-not-call entries with the longest note). A page the service's own operation could not
// afford was a 500 once.

let app: TestApp;
let owner: string;
let webhookId: number;
let contactId: number;
const MAX = GRAPHQL_LIMITS.maxPageSize;
const long = (n: number, seed: string) => seed.repeat(Math.ceil(n / seed.length)).slice(0, n);

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  const types = (await app.request('GET', '/api/webhooks/event-types', { token: owner })).body.data as Array<{
    name: string;
    schema: { properties: Record<string, { type?: unknown }> };
  }>;
  const events = types.map((type) => type.name);
  // A filter of many nodes over a field each event's data has.
  const filterOf = (type: (typeof types)[number]) => {
    const path =
      Object.keys(type.schema.properties).find((name) => type.schema.properties[name].type === 'string') ??
      Object.keys(type.schema.properties)[0];
    return { and: [{ path, in: Array.from({ length: 20 }, (_, i) => `value-${i}`) }, { not: { path, eq: 'nobody' } }] };
  };
  const headers = Array.from({ length: BOUNDS.webhook.headers.maxItems }, (_, i) => ({
    name: `X-${long(BOUNDS.webhook.headerName.maxLength - 5, 'Header')}-${String(i).padStart(2, '0')}`,
    value: long(BOUNDS.webhook.headerValue.maxLength, 'v'),
    secret: i % 2 === 0,
  }));
  const permissions = (await app.sql('SELECT id FROM permissions ORDER BY id')).map((r) => r.id as number);
  for (let i = 0; i < MAX; i++) {
    const hook = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: {
        title: `${String(i).padStart(3, '0')} ${long(BOUNDS.webhook.title.maxLength - 4, 'Webhook ')}`,
        url: `http://127.0.0.1:9/${long(BOUNDS.webhook.url.maxLength - 30, 'path/')}`,
        events,
        headers,
        filters: types.map((type) => ({ event: type.name, filter: filterOf(type) })),
        form_data: ['email', 'first_name', 'last_name', 'phone_number'],
      },
    });
    assert.equal(hook.status, 201, hook.text.slice(0, 300));
    webhookId = hook.body.data.id;
    const role = await app.request('POST', '/api/roles', {
      token: owner,
      body: { title: `${String(i).padStart(3, '0')} ${long(BOUNDS.role.title.maxLength - 4, 'Role ')}`, permissions },
    });
    assert.equal(role.status, 201, role.text.slice(0, 300));
    const contact = await app.request('POST', '/api/contacts', {
      token: owner,
      body: {
        phone_number: `+1555${String(7_000_000 + i)}`,
        first_name: long(BOUNDS.contact.firstName.maxLength, 'First'),
        last_name: long(BOUNDS.contact.lastName.maxLength, 'Last'),
        address: long(BOUNDS.contact.address.maxLength, 'Street '),
        tags: Array.from(
          { length: BOUNDS.contact.tags.maxItems },
          (_, t) => `${t}-${long(BOUNDS.contact.tags.items.maxLength - 3, 'tag')}`,
        ),
        custom_fields: Object.fromEntries(
          Array.from({ length: BOUNDS.contact.customFields.maxItems }, (_, f) => [
            `field_${f}`,
            long(BOUNDS.contact.customValue.maxLength, 'c'),
          ]),
        ),
      },
    });
    assert.equal(contact.status, 201, contact.text.slice(0, 300));
    contactId = contact.body.data.id;
  }
  const listed = await app.request('POST', '/api/do-not-call', {
    token: owner,
    body: {
      phone_numbers: Array.from({ length: MAX }, (_, i) => `+1555${String(8_000_000 + i)}`),
      note: long(BOUNDS.doNotCall.note.maxLength, 'Note '),
    },
  });
  assert.equal(listed.status, 201, listed.text.slice(0, 300));
});
after(() => app.close());

/** Every GET row that pages, with its path filled in, at the largest page its documentation states. */
const listRows = routeTable.filter((route) => route.methods.includes('GET') && route.params.query?.per_page);
const pathOf = (path: string) => path.replace('{id}', String(webhookId));
const largestOf = (route: (typeof listRows)[number]) =>
  Number(/at most (\d+)/.exec(route.params.query!.per_page.description ?? '')?.[1] ?? MAX);
/** The one subject the deliveries-by-subject list needs. */
const subjectOf = (route: (typeof listRows)[number]) =>
  route.operationId === 'listDeliveriesBySubject'
    ? { rest: `&contact_id=${contactId}`, graphql: { contactId: String(contactId) } }
    : { rest: '', graphql: {} };

describe('every list at its largest page', () => {
  it('covers the lists a client can page through', () => {
    assert.ok(listRows.length >= 16, listRows.map((r) => r.operationId).join(', '));
    for (const name of ['listWebhooks', 'listRoles', 'listContacts'])
      assert.ok(
        listRows.some((r) => r.operationId === name),
        name,
      );
  });

  for (const route of listRows) {
    it(`REST ${route.operationId}: per_page at its largest answers 200 with a full page`, async () => {
      const res = await app.request(
        'GET',
        `${pathOf(route.paths[0])}?per_page=${largestOf(route)}${subjectOf(route).rest}`,
        { token: owner },
      );
      assert.equal(res.status, 200, `${route.paths[0]}: ${res.text.slice(0, 300)}`);
      const { records, pagination } = res.body.data;
      assert.equal(pagination.per_page, largestOf(route));
      assert.equal(records.length, Math.min(largestOf(route), pagination.total));
      if (['listWebhooks', 'listRoles', 'listContacts'].includes(route.operationId))
        assert.equal(records.length, MAX, 'a full page of the largest records');
    });

    it(`GraphQL ${route.operationId}: perPage at its largest answers data with a full page`, async () => {
      const res = await app.graphql(
        route.document,
        { perPage: largestOf(route), id: String(webhookId), ...subjectOf(route).graphql },
        owner,
      );
      assert.equal(res.status, 200, res.text.slice(0, 300));
      assert.equal(res.body.errors, undefined, res.text.slice(0, 300));
      const page = res.body.data[route.response.field];
      assert.equal(page.records.length, Math.min(largestOf(route), page.pagination.total));
    });
  }

  it('a GraphQL page of webhooks with every field costs within the limit', async () => {
    const res = await app.graphql(
      `{ webhooks(perPage: ${MAX}) { records { id title url events headers { name value secret } filters { event filter } } pagination { total } } }`,
      {},
      owner,
    );
    assert.equal(res.body.errors, undefined, res.text.slice(0, 300));
    assert.equal(res.body.data.webhooks.records.length, MAX);
    assert.equal(res.body.data.webhooks.records[0].headers.length, BOUNDS.webhook.headers.maxItems);
  });
});

describe('the start-up check of the route table', () => {
  it('stops the start on a row whose largest page would be over the GraphQL limits, naming the row', async () => {
    const { compileRoutes } = await import('../src/rest/compile.js');
    const { createSchema } = await import('../src/graphql/schema.js');
    const listWebhooks = routeTable.find((route) => route.operationId === 'listWebhooks')!;
    const pages = Array.from(
      { length: 3 },
      (_, i) => `w${i}: webhooks(perPage: $perPage) { records { id headers { name } filters { event } } }`,
    ).join(' ');
    const greedy = {
      ...listWebhooks,
      operationId: 'greedyWebhooks',
      document: `query Greedy($search: String, $event: WebhookEvent, $active: Boolean, $page: Int, $perPage: Int) {
      webhooks(search: $search, event: $event, active: $active, page: $page, perPage: $perPage) { records { id } } ${pages} }`,
    };
    const schema = await createSchema();
    assert.throws(
      () => compileRoutes(schema, [greedy]),
      /^Error: Route greedyWebhooks: at its largest page its operation is over the GraphQL limits: The query costs [\d,]+ or more, over the limit of 5,000/,
    );
    assert.doesNotThrow(() => compileRoutes(schema, [listWebhooks]));
  });
});
