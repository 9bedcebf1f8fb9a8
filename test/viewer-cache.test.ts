import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { TokenSigner } from '../src/auth/tokens.js';
import { ViewerCache } from '../src/auth/viewer-cache.js';
import type { Viewer } from '../src/context/request-context.js';
import { AuthService } from '../src/services/auth.service.js';
import type { LoginLimiter } from '../src/services/login-limiter.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually } from './helpers/receiver.js';
import { startWorker } from './helpers/worker.js';

// Viewers are cached per token in each process; every change that can alter
// one reaches every process through LISTEN/NOTIFY within a second.

let app: TestApp;
let other: ChildProcess & { url: string };

before(async () => {
  app = await startTestApp();
  // A second API process on the same database, caching for a minute: only a notification can make it forget.
  other = await startWorker(app, { PROCESS_ROLE: 'api', VIEWER_CACHE_TTL: '60s' });
});
after(async () => {
  other.kill('SIGTERM');
  await new Promise((resolve) => other.once('exit', resolve));
  await app.close();
});

const onOther = async (path: string, token: string) =>
  (await fetch(`${other.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).status;
/** The status the other process answers, once it differs from `was`, within a second. */
const otherTurns = (path: string, token: string, was: number) =>
  eventually(
    async () => {
      const status = await onOther(path, token);
      return status === was ? undefined : status;
    },
    1000,
    `the other process to stop answering ${was}`,
  );

describe('a change made in one process reaches the cached viewers of another within a second', () => {
  it('logout: the token is refused by both processes', async () => {
    const token = await app.userWith(['view-role'], 'leaving');
    assert.equal(await onOther('/api/roles', token), 200);
    assert.equal(await onOther('/api/roles', token), 200); // now cached there
    assert.equal((await app.request('POST', '/api/logout', { token })).status, 200);
    assert.equal(
      (await app.request('GET', '/api/roles', { token })).status,
      401,
      'the process that logged out refuses it at once',
    );
    assert.equal(await otherTurns('/api/roles', token, 200), 401);
  });

  it('a permission taken from the role through the API: 403 on the other process', async () => {
    const token = await app.userWith(['view-role']);
    assert.equal(await onOther('/api/roles', token), 200);
    const [{ role_id: roleId }] = await app.sql(
      "SELECT u.role_id FROM users u JOIN roles r ON r.id = u.role_id WHERE r.title LIKE 'Only view-role %' ORDER BY u.id DESC LIMIT 1",
    );
    const owner = await app.login('owner@acme.test');
    const change = await app.request('PUT', `/api/roles/${roleId}/permissions`, {
      token: owner,
      body: { permissions: [] },
    });
    assert.equal(change.status, 200);
    assert.equal((await app.request('GET', '/api/roles', { token })).status, 403);
    assert.equal(await otherTurns('/api/roles', token, 200), 403);
  });

  it('a user removed with SQL, as an operator would: 401 on the other process', async () => {
    const token = await app.userWith(['view-role'], 'removed');
    assert.equal(await onOther('/api/roles', token), 200);
    await app.sql("DELETE FROM users WHERE name = 'User removed'");
    assert.equal(await otherTurns('/api/roles', token, 200), 401);
  });

  it('a role moved to a user: the new role applies on the other process', async () => {
    const token = await app.userWith([], 'moved');
    assert.equal(await onOther('/api/roles', token), 403);
    await app.sql(
      "UPDATE users SET role_id = (SELECT id FROM roles WHERE is_owner AND company_id = users.company_id) WHERE name = 'User moved'",
    );
    assert.equal(await otherTurns('/api/roles', token, 403), 200);
  });

  it('the company renamed: the viewer shows the new name on the other process', async () => {
    const token = await app.login('owner@gamma.test');
    const name = async () =>
      (
        await (
          await fetch(`${other.url}/graphql`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ query: '{ me { company { name } } }' }),
          })
        ).json()
      ).data.me.company.name as string;
    const before = await name();
    await app.sql("UPDATE companies SET name = 'Gamma Renamed' WHERE name = $1", [before]);
    assert.equal(
      await eventually(async () => ((await name()) === 'Gamma Renamed' ? true : undefined), 1000, 'the new name'),
      true,
    );
  });
});

describe('ViewerCache', () => {
  const viewer = (jti: string, user = 1, role = 1, company = 1): Viewer => ({
    user: { id: user, name: 'U', email: 'u@x.test' },
    company: { id: company, name: 'C', timeZone: 'UTC', isAgency: false, parentId: null },
    role: { id: role, title: 'R', isOwner: false },
    permissions: new Set(),
    claims: { sub: String(user), cid: company, jti, iat: 0, exp: 0 },
  });
  // A cache that believes it is listening, with a clock of the test's.
  const listeningCache = (ttlMs: number, now: () => number, max?: number) => {
    const cache = new ViewerCache(ttlMs, max, now);
    (cache as unknown as { listening: boolean }).listening = true;
    return cache;
  };

  it('keeps a viewer for its lifetime, never past the token end', () => {
    let now = 1000;
    const cache = listeningCache(30_000, () => now);
    cache.set('a', viewer('a'), cache.mark(), 1_000_000);
    cache.set('b', viewer('b'), cache.mark(), 5000);
    now = 4999;
    assert.ok(cache.get('a') && cache.get('b'));
    now = 5000;
    assert.equal(cache.get('b'), undefined, 'the token ended');
    now = 31_000;
    assert.equal(cache.get('a'), undefined, 'the cache lifetime ended');
  });

  it('does not keep a viewer read before a change', () => {
    const cache = listeningCache(30_000, () => 0);
    const mark = cache.mark();
    cache.forget({ user: 99 });
    cache.set('a', viewer('a'), mark, 1e12);
    assert.equal(cache.get('a'), undefined);
  });

  it('forgets by token, user, role and company, and only those', () => {
    const cache = listeningCache(30_000, () => 0);
    for (const [token, user, role, company] of [
      ['t1', 1, 1, 1],
      ['t2', 2, 2, 1],
      ['t3', 3, 3, 2],
      ['t4', 4, 4, 3],
    ] as const)
      cache.set(token, viewer(token, user, role, company), cache.mark(), 1e12);
    cache.forget({ jti: 't1' });
    assert.equal(cache.get('t1'), undefined);
    cache.forget({ role: 2 });
    assert.equal(cache.get('t2'), undefined);
    cache.forget({ company: 2 });
    assert.equal(cache.get('t3'), undefined);
    assert.ok(cache.get('t4'));
    cache.forget({ user: 4 });
    assert.equal(cache.size, 0);
  });

  it('asks once for a viewer in use past half its lifetime to be read again, and keeps it until then', () => {
    let now = 0;
    const cache = listeningCache(30_000, () => now);
    cache.set('a', viewer('a'), cache.mark(), 1e12);
    cache.set('short', viewer('short'), cache.mark(), 12_000);
    now = 14_999;
    assert.equal(cache.renewing('a'), false);
    now = 15_000;
    assert.deepEqual([cache.renewing('a'), cache.renewing('a')], [true, false], 'once');
    now = 11_999;
    assert.equal(
      cache.renewing('short'),
      false,
      'a token ending before the cache lifetime has nothing to be renewed into',
    );
    assert.ok(cache.get('a'), 'still served until its end');
    cache.drop('a');
    assert.deepEqual([cache.get('a'), cache.renewing('a'), cache.renewing('nobody')], [undefined, false, false]);
  });

  it('holds at most its size, dropping the oldest; caches nothing when not listening or with a lifetime of 0', () => {
    const cache = listeningCache(30_000, () => 0, 2);
    for (const token of ['a', 'b', 'c']) cache.set(token, viewer(token), cache.mark(), 1e12);
    assert.deepEqual([cache.get('a'), !!cache.get('b'), !!cache.get('c')], [undefined, true, true]);
    const deaf = new ViewerCache(30_000);
    deaf.set('a', viewer('a'), deaf.mark(), 1e12);
    assert.equal(deaf.size, 0);
    const off = listeningCache(0, () => 0);
    off.set('a', viewer('a'), off.mark(), 1e12);
    assert.equal(off.size, 0);
  });
});

describe('one listening session per process (docs/adr/0075-one-listening-session.md)', () => {
  /** The sessions of this database that listen for the processes' own channels (the pumps' and the job store's aside). */
  const listening = () =>
    app.sql<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'
       AND query NOT LIKE '%agenda%' AND application_name <> 'switchboard-pump' ORDER BY pid`,
    );

  it('each process listens to all its channels on one session; cut, it comes back, and changes reach the process again', async () => {
    // Two processes (this one and the other), each listening to viewer changes, live events and presence.
    const sessions = await eventually(
      async () => {
        const rows = await listening();
        return rows.length === 2 ? rows : undefined;
      },
      5000,
      'one listening session per process',
    );
    const token = await app.userWith(['view-role'], 'cut off');
    assert.equal(await onOther('/api/roles', token), 200);
    await app.sql('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [sessions.map((s) => s.pid)]);
    await eventually(
      async () => {
        const rows = await listening();
        return rows.length === 2 && rows.every((row) => !sessions.some((s) => s.pid === row.pid)) ? true : undefined;
      },
      5000,
      'both sessions back',
    );
    assert.equal(await onOther('/api/roles', token), 200); // cached again once listening
    assert.equal((await app.request('POST', '/api/logout', { token })).status, 200);
    assert.equal(await otherTurns('/api/roles', token, 200), 401);
  });
});

describe('reads of viewers (docs/adr/0113-viewers-renewed-ahead.md)', () => {
  // An AuthService of the test's own on the app's database, its cache listening to nothing and on the test's clock:
  // only the test makes it forget.
  const local = () => {
    const clock = { now: 0 };
    const cache = new ViewerCache(30_000, undefined, () => clock.now);
    (cache as unknown as { listening: boolean }).listening = true;
    const auth = new AuthService(
      new TokenSigner(app.config.jwtSecret, app.config.jwtTtlSeconds),
      undefined as unknown as LoginLimiter, // signs no one in
      cache,
    );
    return { clock, cache, auth, ctx: () => app.running.services.contexts.forMaintenance('a test').readOnly() };
  };

  it('shares one read among the requests that miss the same token together, but not across a change', async () => {
    const token = await app.userWith(['view-role'], 'shared read');
    const { cache, auth, ctx } = local();
    const [a, b] = await Promise.all([auth.resolveViewer(ctx(), token), auth.resolveViewer(ctx(), token)]);
    assert.ok(a);
    assert.equal(a, b, 'one viewer read for both');
    cache.forget('all');
    const before = auth.resolveViewer(ctx(), token);
    cache.forget({ user: a.user.id });
    const [c, d] = await Promise.all([before, auth.resolveViewer(ctx(), token)]);
    assert.ok(c && d);
    assert.notEqual(c, d, 'a read begun before a change is not shared after it');
    assert.equal(cache.get(token), d, 'and only the later one is kept');
  });

  it('reads a viewer in use again past half its lifetime, in the background, and drops one found no more', async () => {
    const token = await app.userWith(['view-role'], 'renewed');
    const { clock, cache, auth, ctx } = local();
    const first = await auth.resolveViewer(ctx(), token);
    assert.ok(first);
    clock.now = 14_000;
    assert.equal(auth.cachedViewer(token, ctx), first);
    assert.equal(cache.get(token), first, 'not yet half its lifetime: not read again');
    clock.now = 15_000;
    assert.equal(auth.cachedViewer(token, ctx), first, 'served at once, while read again');
    const renewed = await eventually(
      async () => (cache.get(token) !== first ? cache.get(token) : undefined),
      2000,
      'the viewer read again',
    );
    assert.equal(renewed?.user.id, first.user.id);
    clock.now = 31_000; // past the first entry's end: the renewed one is served (and, past its half, read again)
    assert.equal(auth.cachedViewer(token, ctx), renewed);
    const third = await eventually(
      async () => (cache.get(token) !== renewed ? cache.get(token) : undefined),
      2000,
      'the viewer read again',
    );

    // Signed out elsewhere (this cache hears nothing): the next read past half the lifetime finds no viewer.
    assert.equal((await app.request('POST', '/api/logout', { token })).status, 200);
    clock.now = 50_000;
    assert.equal(auth.cachedViewer(token, ctx), third, 'served until the read says otherwise');
    await eventually(async () => (cache.get(token) === undefined ? true : undefined), 2000, 'the viewer dropped');
  });
});
