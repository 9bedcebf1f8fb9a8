import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DEMO_PASSWORD } from '../src/seed/demo.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually } from './helpers/receiver.js';
import { kill, startWorker } from './helpers/worker.js';

// Idempotency-Key on REST writes, over HTTP against a real database: a retry
// gets the first answer byte for byte and writes nothing; another request
// under the key is 422; one still in progress is 409; twenty at once write
// once; and a process killed after the commit, before its answer, leaves the
// answer for the retry.

let app: TestApp;
let owner: string;

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
});
after(async () => {
  await app.close();
});

const post = (path: string, body: unknown, key?: string, token = owner) =>
  app.request('POST', path, { token, body, headers: key === undefined ? {} : { 'idempotency-key': key } });
const campaignsNamed = async (name: string) =>
  (await app.sql<{ n: number }>('SELECT count(*)::int AS n FROM campaigns WHERE name = $1', [name]))[0].n;
const uniqueKey = () => `key-${crypto.randomUUID()}`;

describe('Idempotency-Key', () => {
  it('answers a retry with the first answer, byte for byte and marked, and writes once', async () => {
    const key = uniqueKey();
    const first = await post('/api/campaigns', { name: 'Once only' }, key);
    assert.equal(first.status, 201, first.text);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const again = await post('/api/campaigns', { name: 'Once only' }, key);
    assert.equal(again.status, 201);
    assert.equal(again.text, first.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.headers.get('content-type'), first.headers.get('content-type'));
    assert.equal(await campaignsNamed('Once only'), 1);
    // Without a key, the same request is a new one, as always.
    assert.equal((await post('/api/campaigns', { name: 'Once only' })).status, 201);
    assert.equal(await campaignsNamed('Once only'), 2);
  });

  it('refuses the key with another request (422) and a malformed key (400), changing nothing', async () => {
    const key = uniqueKey();
    assert.equal((await post('/api/campaigns', { name: 'First body' }, key)).status, 201);
    const before = await app.fingerprint();
    const other = await post('/api/campaigns', { name: 'Second body' }, key);
    assert.equal(other.status, 422);
    assert.equal(
      other.body.message,
      'This Idempotency-Key was already used with another request. Use a new key for a new request.',
    );
    const elsewhere = await app.request('PUT', '/api/agents/performance-thresholds', {
      token: owner,
      body: { answer_rate: 0.5 },
      headers: { 'idempotency-key': key },
    });
    assert.equal(elsewhere.status, 422, 'another route is another request');
    for (const bad of ['x'.repeat(256), 'two words', 'clé']) {
      const res = await post('/api/campaigns', { name: 'Bad key' }, bad);
      assert.equal(res.status, 400, bad);
      assert.match(res.body.message, /^The Idempotency-Key header must be 1 to 255 visible ASCII characters/);
    }
    assert.equal(await app.fingerprint(), before);
    assert.equal(await campaignsNamed('Second body'), 0);
  });

  it('keeps nothing for a write that failed: the retry runs again', async () => {
    const key = uniqueKey();
    const refused = await post('/api/campaigns', { name: '' }, key);
    assert.equal(refused.status, 422);
    assert.equal((await app.sql('SELECT count(*)::int AS n FROM idempotency_keys WHERE key = $1', [key]))[0].n, 0);
    // The same (bad) request again is judged again, and a key's first success is what it keeps.
    assert.equal((await post('/api/campaigns', { name: '' }, key)).status, 422);
  });

  it('is per company, ignored on reads and sign-in, and runs again after 24 hours', async () => {
    const key = uniqueKey();
    const gamma = await app.login('owner@gamma.test');
    assert.equal((await post('/api/campaigns', { name: 'Shared key' }, key)).status, 201);
    const theirs = await post('/api/campaigns', { name: 'Shared key' }, key, gamma);
    assert.equal(theirs.status, 201);
    assert.equal(theirs.headers.get('idempotent-replayed'), null, "another company's key is its own");
    assert.equal(await campaignsNamed('Shared key'), 2);

    const read = await app.request('GET', '/api/campaigns', { token: owner, headers: { 'idempotency-key': key } });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('idempotent-replayed'), null);
    const login = await app.request('POST', '/api/login', {
      body: { email: 'owner@acme.test', password: DEMO_PASSWORD },
      headers: { 'idempotency-key': 'x y' },
    });
    assert.equal(login.status, 200, 'sign-in takes no key');

    await app.sql("UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1", [key]);
    const later = await post('/api/campaigns', { name: 'Shared key' }, key);
    assert.equal(later.status, 201);
    assert.equal(later.headers.get('idempotent-replayed'), null);
    assert.equal(await campaignsNamed('Shared key'), 3);
  });

  it("a mutation whose own transaction is a plain one (a role renamed) joins the key's transaction: the rename and its answer commit together", async () => {
    const [{ id }] = await app.sql(
      "SELECT r.id FROM roles r JOIN companies c ON c.id = r.company_id WHERE c.name = 'Acme Agency' AND NOT r.is_owner ORDER BY r.id LIMIT 1",
    );
    const key = uniqueKey();
    const rename = (title: string) =>
      app.request('PUT', `/api/roles/${id}`, { token: owner, body: { title }, headers: { 'idempotency-key': key } });
    const first = await rename('Renamed once');
    assert.equal(first.status, 200, first.text);
    const again = await rename('Renamed once');
    assert.equal(again.text, first.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal((await app.sql('SELECT title FROM roles WHERE id = $1', [id]))[0].title, 'Renamed once');
    // A refused rename (a title another role has) keeps nothing under a new key, and changes nothing.
    const [{ title: taken }] = await app.sql(
      "SELECT r.title FROM roles r JOIN companies c ON c.id = r.company_id WHERE c.name = 'Acme Agency' AND r.id <> $1 ORDER BY r.id LIMIT 1",
      [id],
    );
    const clash = await app.request('PUT', `/api/roles/${id}`, {
      token: owner,
      body: { title: taken },
      headers: { 'idempotency-key': uniqueKey() },
    });
    assert.ok(clash.status === 409 || clash.status === 422, clash.text);
    assert.equal((await app.sql('SELECT title FROM roles WHERE id = $1', [id]))[0].title, 'Renamed once');
  });

  it('twenty retries at once write once: each gets the answer or 409 while the first is in progress', async () => {
    const key = uniqueKey();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => post('/api/campaigns', { name: 'Twenty at once' }, key)),
    );
    const created = answers.filter((a) => a.status === 201);
    const busy = answers.filter((a) => a.status === 409);
    assert.equal(created.length + busy.length, 20, answers.map((a) => a.status).join(','));
    assert.ok(created.length >= 1);
    assert.equal(new Set(created.map((a) => a.text)).size, 1, 'one answer');
    assert.equal(created.filter((a) => a.headers.get('idempotent-replayed') === null).length, 1, 'one of them made it');
    for (const b of busy)
      assert.equal(
        b.body.message,
        'A request with this Idempotency-Key is still in progress. Retry once it has finished.',
      );
    assert.equal(await campaignsNamed('Twenty at once'), 1);
    const [{ id }] = await app.sql('SELECT id FROM campaigns WHERE name = $1', ['Twenty at once']);
    assert.equal(JSON.parse(created[0].text).data.id, id);
  });

  it('on /graphql: a mutation sent again gets its first result, marked; another request or two fields under a key are refused', async () => {
    const key = uniqueKey();
    const create = 'mutation($name: String!) { createCampaign(name: $name) { id name status } }';
    const gql = (query: string, variables: Record<string, unknown>, withKey = key) =>
      app.request('POST', '/graphql', {
        token: owner,
        body: { query, variables },
        headers: { 'idempotency-key': withKey },
      });
    const first = await gql(create, { name: 'Over GraphQL' });
    assert.equal(first.status, 200, first.text);
    assert.ok(first.body.data.createCampaign.id);
    // Twice more: the second time through the compiled path, too.
    for (let i = 0; i < 2; i++) {
      const again = await gql(create, { name: 'Over GraphQL' });
      assert.equal(again.text, first.text);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
    }
    assert.equal(await campaignsNamed('Over GraphQL'), 1);
    const other = await gql(create, { name: 'Other variables' });
    assert.equal(
      other.body.errors[0].message,
      'This Idempotency-Key was already used with another request. Use a new key for a new request.',
    );
    assert.equal(other.body.errors[0].extensions.code, 'UNPROCESSABLE');
    const two = await gql(
      'mutation { a: createCampaign(name: "Two A") { id } b: createCampaign(name: "Two B") { id } }',
      {},
      uniqueKey(),
    );
    assert.match(two.body.errors[0].message, /^An Idempotency-Key covers one mutation field/);
    assert.equal(await campaignsNamed('Two A'), 0);
    // A refused mutation keeps nothing: the same key then runs a good one.
    const retryKey = uniqueKey();
    const refused = await gql(create, { name: '' }, retryKey);
    assert.equal(refused.body.errors[0].extensions.code, 'BAD_USER_INPUT');
    assert.equal(
      (await gql(create, { name: '' }, retryKey)).body.errors[0].extensions.code,
      'BAD_USER_INPUT',
      'judged again, not replayed',
    );
    // A query ignores the header.
    const read = await app.request('POST', '/graphql', {
      token: owner,
      body: { query: '{ me { id } }' },
      headers: { 'idempotency-key': 'not checked on a query' },
    });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('idempotent-replayed'), null);
  });

  it('a process killed after the commit, before it answers: the retry gets the committed answer and nothing is written twice', async () => {
    const api = await startWorker(app, { PROCESS_ROLE: 'api' });
    let restarted: Awaited<ReturnType<typeof startWorker>> | undefined;
    try {
      const key = uniqueKey();
      const body = JSON.stringify({ name: 'Killed before answering' });
      // A client whose answer never arrives: it sends the request and never reads.
      const { hostname, port } = new URL(api.url);
      const socket = connect(Number(port), hostname);
      socket.on('error', () => undefined);
      socket.write(
        `POST /api/campaigns HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ` +
          `${owner}\r\nIdempotency-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      socket.pause();
      // The write and its kept answer commit together; the moment they are visible, the process dies.
      await eventually(
        async () =>
          (await app.sql('SELECT count(*)::int AS n FROM idempotency_keys WHERE key = $1', [key]))[0].n === 1
            ? true
            : undefined,
        10_000,
        'the commit',
      );
      await kill(api);
      socket.destroy();
      assert.equal(await campaignsNamed('Killed before answering'), 1);

      restarted = await startWorker(app, { PROCESS_ROLE: 'api' });
      const retry = await fetch(`${restarted.url}/api/campaigns`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner}`, 'idempotency-key': key, 'content-type': 'application/json' },
        body,
      });
      assert.equal(retry.status, 201);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      const [{ id }] = await app.sql('SELECT id FROM campaigns WHERE name = $1', ['Killed before answering']);
      assert.equal((await retry.json()).data.id, id);
      assert.equal(await campaignsNamed('Killed before answering'), 1);
    } finally {
      if (api.exitCode === null && api.signalCode === null) await kill(api);
      if (restarted) await kill(restarted);
    }
  });
});
