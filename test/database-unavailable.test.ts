import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { loginThrough } from './helpers/app.js';
import { embeddedPostgresSkip } from './helpers/processes.js';
import { type OwnPostgres, serviceOnOwnPostgres } from './helpers/own-postgres.js';
import { eventually } from './helpers/receiver.js';
import { appErrorOf, DatabaseUnavailableError } from '../src/kernel/errors.js';

// While its database cannot be reached, the API answers 503 with Retry-After, over REST and GraphQL alike, and
// the same requests succeed once it is back: PostgreSQL stopped and started again, then out of connections ("too
// many clients"). The service's own PostgreSQL (embedded, few connections) is the one stopped and filled.

const UNAVAILABLE = 'The service is briefly unavailable. Try again in a moment.';

const skip = embeddedPostgresSkip();

describe('the database unavailable', { skip }, () => {
  let own: OwnPostgres | undefined;
  const held: pg.Client[] = [];
  after(async () => {
    await Promise.all(held.map((client) => client.end().catch(() => undefined)));
    await own?.close();
  });

  it('answers 503 with Retry-After while PostgreSQL refuses connections or is stopped, and succeeds once it is back', async () => {
    own = await serviceOnOwnPostgres('unavailable', { PROCESS_ROLE: 'api', DATABASE_POOL_SIZE: '4' }, [
      '-c',
      'max_connections=40',
    ]);
    const { url, databaseUrl } = own;
    const token = await loginThrough(url);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const rest = () => fetch(`${url}/api/roles`, { headers });
    const graphql = () =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: '{ roles { pagination { total } } }' }),
      });
    const answersUnavailable = async (when: string) => {
      const [r, g] = await Promise.all([rest(), graphql()]);
      assert.equal(r.status, 503, `REST, ${when}`);
      assert.equal(r.headers.get('retry-after'), '1');
      assert.deepEqual(await r.json(), { success: false, message: UNAVAILABLE });
      assert.equal(g.status, 503, `GraphQL, ${when}`);
      assert.equal(g.headers.get('retry-after'), '1');
      const body = (await g.json()) as { errors: Array<{ message: string; extensions: Record<string, unknown> }> };
      assert.equal(body.errors[0].message, UNAVAILABLE);
      assert.equal(body.errors[0].extensions.code, 'SERVICE_UNAVAILABLE');
      assert.deepEqual(body.errors[0].extensions.http, { status: 503 });
    };
    const answersAgain = () =>
      eventually(
        async () => {
          const [r, g] = await Promise.all([rest(), graphql()]);
          return r.status === 200 && g.status === 200 ? true : undefined;
        },
        30_000,
        'answers once the database is back',
      );
    await answersAgain();

    // Stopped, then started again on the same folder and port.
    await own.stopDatabase();
    await answersUnavailable('stopped');
    await own.startDatabase();
    await answersAgain();

    // Out of connections: the service's sessions ended (and gone: a terminated session holds its slot until its
    // process exits), then every slot the server has taken here, until PostgreSQL refuses one itself.
    const admin = new pg.Client(databaseUrl);
    await admin.connect();
    held.push(admin);
    await admin.query(
      'SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = $1',
      ['client backend'],
    );
    let refusal: { code?: string } | undefined;
    while (!refusal) {
      const client = new pg.Client(databaseUrl);
      refusal = await client.connect().then(
        () => void held.push(client),
        (error: { code?: string }) => error,
      );
    }
    assert.equal(refusal.code, '53300');
    // A request finds a connection only if the service's background readers took one back meanwhile: it succeeds,
    // or is told to try again; never a server error. PostgreSQL's refusal itself is the same 503.
    const [r, g] = await Promise.all([rest(), graphql()]);
    assert.ok([200, 503].includes(r.status), `REST answered ${r.status}`);
    assert.ok([200, 503].includes(g.status), `GraphQL answered ${g.status}`);
    const known = appErrorOf(refusal);
    assert.ok(known instanceof DatabaseUnavailableError);
    assert.equal(known.status, 503);
    assert.deepEqual(known.headers, { 'Retry-After': '1' });
    await Promise.all(held.splice(0).map((client) => client.end()));
    await answersAgain();
  });
});
