import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually } from './helpers/receiver.js';

// GET /api/events and the GraphQL events connection: every event of the
// company, oldest first after an opaque cursor, with the data a delivery
// carries; no event passed by a cursor that moved on before it committed; a
// 410 for a cursor older than the retention; bad input named, never a 500.

let app: TestApp;
let owner: string;
let gamma: string;
let acme: number;

type FeedBody = {
  data: Array<{ id: string; event: string; timestamp: string; data: any }>;
  has_more: boolean;
  next_cursor: string;
  message?: string;
  errors?: Record<string, string[]>;
};

const feed = async (query = '', token = owner) => app.request<FeedBody>('GET', `/api/events${query}`, { token });

/** Every event from the start (or after `after`), following next_cursor `limit` at a time. */
async function walk(limit: number, extra = '', after?: string) {
  const seen: FeedBody['data'] = [];
  let cursor = after;
  for (let pages = 0; pages < 1000; pages++) {
    const res = await feed(`?limit=${limit}${extra}${cursor ? `&after=${cursor}` : ''}`);
    assert.equal(res.status, 200, res.text);
    seen.push(...res.body.data);
    cursor = res.body.next_cursor;
    if (!res.body.has_more) return { seen, cursor };
  }
  throw new Error('the feed did not end');
}

/**
 * Walks until `holds` accepts what it saw: an event appears once every older writing transaction of the server has
 * ended, and other test files write to the same server meanwhile (the largest, lead-import's 100,000 leads in one
 * transaction, takes a quarter of a minute on a loaded machine).
 */
const VISIBLE_WITHIN_MS = 60_000;
const walkUntil = (holds: (seen: FeedBody['data']) => Promise<boolean> | boolean, limit = 100, extra = '') =>
  eventually(
    async () => {
      const result = await walk(limit, extra);
      return (await holds(result.seen)) ? result : undefined;
    },
    VISIBLE_WITHIN_MS,
    'the feed to show the committed events',
  );

const acmeEventIds = async () =>
  (await app.sql<{ id: string }>('SELECT id FROM events WHERE company_id = $1 ORDER BY tx, id', [acme])).map(
    (r) => r.id,
  );

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  gamma = await app.login('owner@gamma.test');
  [{ id: acme }] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
  for (let i = 0; i < 5; i++)
    assert.equal(
      (await app.request('POST', '/api/agents', { token: owner, body: { name: `Feed agent ${i}` } })).status,
      201,
    );
  assert.equal((await app.request('POST', '/api/agents', { token: gamma, body: { name: 'Gamma agent' } })).status, 201);
});
after(() => app.close());

describe('GET /api/events', () => {
  it('walks every event of the company once, oldest first, a page at a time; none of another company', async () => {
    const ids = await acmeEventIds();
    const { seen, cursor } = await walkUntil(async (now) => now.length >= ids.length, 2);
    assert.deepEqual(
      seen.map((e) => e.id),
      ids,
    );
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(seen.some((e) => e.event === 'agent.created' && e.data.name === 'Feed agent 4'));
    assert.ok(!seen.some((e) => e.data.name === 'Gamma agent'));
    // The last cursor stays valid: nothing new, the same cursor back; a new event, just that one.
    const idle = await feed(`?after=${cursor}`);
    assert.deepEqual(idle.body, { has_more: false, next_cursor: cursor, data: [] });
    await app.request('POST', '/api/agents', { token: owner, body: { name: 'Feed agent late' } });
    const next = await eventually(
      async () => {
        const page = await feed(`?after=${cursor}`);
        return page.body.data.length > 0 ? page : undefined;
      },
      VISIBLE_WITHIN_MS,
      'the late event',
    );
    assert.deepEqual(
      next.body.data.map((e) => [e.event, e.data.name]),
      [['agent.created', 'Feed agent late']],
    );
  });

  it('carries the event, timestamp and data a delivery carries', async () => {
    const hook = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: 'Feed twin', url: 'https://example.com/hook', events: ['agent.created'], list_selection: 'All' },
    });
    assert.equal(hook.status, 201, hook.text);
    await app.request('POST', '/api/agents', { token: owner, body: { name: 'Feed twin agent' } });
    const [row] = await app.sql<{ payload: string; event_id: string }>(
      'SELECT payload, event_id FROM webhook_deliveries WHERE webhook_id = $1',
      [hook.body.data.id],
    );
    const payload = JSON.parse(row.payload);
    const { seen } = await walkUntil((now) => now.some((e) => e.id === row.event_id));
    const event = seen.find((e) => e.id === row.event_id)!;
    assert.deepEqual(
      { event: event.event, timestamp: event.timestamp, data: event.data },
      { event: payload.event, timestamp: payload.timestamp, data: payload.data },
    );
  });

  it('answers GraphQL with the same events and cursors', async () => {
    const rest = await feed('?limit=3');
    const gql = await app.graphql(
      '{ events(limit: 3) { nodes { id event occurredAt data } pageInfo { hasNextPage endCursor } } }',
      {},
      owner,
    );
    assert.equal(gql.status, 200, JSON.stringify(gql.body));
    const { nodes, pageInfo } = gql.body.data.events;
    assert.deepEqual(
      nodes.map((n: any) => ({ id: n.id, event: n.event.replace('_', '.'), timestamp: n.occurredAt, data: n.data })),
      rest.body.data,
    );
    assert.deepEqual(pageInfo, { hasNextPage: rest.body.has_more, endCursor: rest.body.next_cursor });
  });

  it('filters by type, comma-separated or repeated', async () => {
    const campaign = await app.request('POST', '/api/campaigns', { token: owner, body: { name: 'Feed campaign' } });
    assert.equal(
      (await app.request('POST', `/api/campaigns/${campaign.body.data.id}/start`, { token: owner })).status,
      200,
    );
    await walkUntil((now) => now.some((e) => e.event === 'campaign.started'));
    const agents = (await walk(50, '&types=agent.created')).seen;
    assert.ok(agents.length >= 5 && agents.every((e) => e.event === 'agent.created'));
    const both = (await walk(50, '&types=agent.created,campaign.started')).seen;
    const repeated = (await walk(50, '&types=agent.created&types=campaign.started')).seen;
    assert.deepEqual(both, repeated);
    assert.deepEqual(new Set(both.map((e) => e.event)), new Set(['agent.created', 'campaign.started']));
  });

  it('never passes an event that a transaction older than the page commits later', async () => {
    const { cursor } = await walkUntil(async (now) => now.length === (await acmeEventIds()).length);
    const held = new pg.Client({ connectionString: app.running.databaseUrl });
    await held.connect();
    try {
      await held.query('BEGIN');
      await held.query(
        `INSERT INTO events (id, company_id, type, data, occurred_at, subjects, filtered_by)
         VALUES ('evt_0HELD000000000000000000000', $1, 'agent.updated', '{"name":"held"}', now(), '{}', '{}')`,
        [acme],
      );
      await app.request('POST', '/api/agents', { token: owner, body: { name: 'Feed agent after held' } });
      // The agent's event committed, but a transaction older than it is still open: the feed waits for it.
      const waiting = await feed(`?after=${cursor}`);
      assert.deepEqual(waiting.body, { has_more: false, next_cursor: cursor, data: [] });
      await held.query('COMMIT');
      const both = await eventually(
        async () => {
          const page = await feed(`?after=${cursor}`);
          return page.body.data.length >= 2 ? page : undefined;
        },
        VISIBLE_WITHIN_MS,
        'both events',
      );
      assert.deepEqual(
        both.body.data.map((e) => e.data.name),
        ['held', 'Feed agent after held'],
      );
    } finally {
      await held.end();
    }
  });

  it('answers 410 for a cursor older than the retention, naming it', async () => {
    const [{ id }] = await app.sql<{ id: string }>(
      `UPDATE events SET occurred_at = now() - interval '31 days'
       WHERE id = (SELECT id FROM events WHERE company_id = $1 ORDER BY tx, id LIMIT 1) RETURNING id`,
      [acme],
    );
    const first = await feed('?limit=1');
    assert.equal(first.body.data[0].id, id);
    const gone = await feed(`?after=${first.body.next_cursor}`);
    assert.equal(gone.status, 410, gone.text);
    assert.match(
      gone.body.message ?? '',
      /older than the event retention \(WEBHOOK_RETENTION, 30 days\).*Start again without after/,
    );
    const gql = await app.graphql(
      'query ($a: String) { events(after: $a) { nodes { id } } }',
      { a: first.body.next_cursor },
      owner,
    );
    assert.equal(gql.body.errors[0].extensions.code, 'GONE');
  });

  it('names the field, the value and what is accepted for bad input; 401 and 403 as every route', async () => {
    for (const [query, field, text] of [
      ['?limit=0', 'limit', 'between 1 and 100 (got 0)'],
      ['?limit=101', 'limit', 'between 1 and 100 (got 101)'],
      ['?limit=ten', 'limit', 'integer'],
      ['?after=not-a-cursor', 'after', 'not a cursor GET /api/events gave (got "not-a-cursor")'],
      [`?after=${Buffer.from('["1; DROP","x",1]').toString('base64url')}`, 'after', 'not a cursor'],
      ['?types=agent.created,call.nope', 'types.1', 'call.nope'],
    ] as const) {
      const res = await feed(query);
      assert.equal(res.status, 422, `${query}: ${res.text}`);
      assert.ok(res.body.errors?.[field]?.[0]?.includes(text), `${query}: ${res.text}`);
    }
    assert.equal((await app.request('GET', '/api/events')).status, 401);
    const noRight = await app.userWith(['view-pipelines'], 'no webhooks');
    assert.equal((await feed('', noRight)).status, 403);
    assert.equal((await feed('', await app.userWith(['view-webhooks'], 'feed reader'))).status, 200);
  });

  it('serves its largest page over the largest events', async () => {
    // 120 events of about 60 KB of data each (a long call transcript is the largest an event carries).
    await app.sql(
      `INSERT INTO events (id, company_id, type, data, occurred_at, subjects, filtered_by)
       SELECT 'evt_1BIG' || lpad(g::text, 22, '0'), $1, 'call.ended', json_build_object('transcript', repeat('word ', 12000)), now(), '{}', '{}'
       FROM generate_series(1, 120) g`,
      [acme],
    );
    const { cursor } = await walkUntil((now) => now.filter((e) => e.event === 'call.ended').length === 120);
    const res = await feed(`?limit=100`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.length, 100);
    assert.equal(res.body.has_more, true);
    assert.ok(cursor);
  });
});
