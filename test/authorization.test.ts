import 'reflect-metadata';
import assert from 'node:assert/strict';
import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AUDIENCE, ISSUER } from '../src/auth/tokens.js';
import { createSchema } from '../src/graphql/schema.js';
import { ALL_ID_FORMS, toBase64Id } from '../src/kernel/ids.js';
import { compileRoutes, type CompiledRoute } from '../src/rest/compile.js';
import { routeTable } from '../src/rest/routes/index.js';
import { TEST_JWT_SECRET, startTestApp, type TestApp } from './helpers/app.js';

// No way around a permission: every row of the route table that names one is
// tried by users without it; the grant rules and the provider account; tokens.

let app: TestApp;
let owner: string;
let routes: CompiledRoute[];
let catalog: string[];

before(async () => {
  app = await startTestApp({ LOGIN_LIMIT_PER_IP: '1000/1m' });
  owner = await app.login('owner@acme.test');
  routes = compileRoutes(await createSchema(), routeTable);
  catalog = (await app.sql('SELECT slug FROM permissions ORDER BY slug')).map((r) => r.slug);
});
after(() => app.close());

/** A concrete path for a row: each path parameter given an id in a form the row accepts. */
const concretePath = (route: CompiledRoute) =>
  route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const forms = route.route.params.path?.[name]?.idForms ?? ALL_ID_FORMS;
    return forms.includes('numeric') ? '1' : toBase64Id(1);
  });

describe('every route of the table that names a permission', () => {
  it('names permissions that exist in the catalog', () => {
    const named = new Set(routes.flatMap((r) => r.permissions));
    assert.ok(named.size > 5);
    for (const slug of named) assert.ok(catalog.includes(slug), `${slug} is not in the permission catalog`);
  });

  it('refuses, with 403 and nothing changed, a user holding every other permission', async () => {
    const guarded = routes.filter((r) => r.permissions.length > 0);
    assert.ok(guarded.length >= 10, 'the table guards its routes');
    const tokens = new Map<string, string>();
    for (const key of new Set(guarded.map((r) => r.permissions.join(',')))) {
      tokens.set(
        key,
        await app.userWith(
          catalog.filter((slug) => !key.split(',').includes(slug)),
          `all-but-${key}`,
        ),
      );
    }
    const before = await app.fingerprint();
    for (const route of guarded) {
      const key = route.permissions.join(',');
      const res = await app.request(route.method, concretePath(route), {
        token: tokens.get(key),
        body: route.method === 'GET' ? undefined : {},
      });
      assert.equal(res.status, 403, `${route.method} ${route.path}: ${res.text}`);
      assert.deepEqual(
        res.body,
        { success: false, message: 'This action is unauthorized.' },
        `${route.method} ${route.path}`,
      );
    }
    assert.equal(await app.fingerprint(), before);
  });

  it('answers 401 and 403 before any answer about the input, and 422 once the caller may', async () => {
    const without = await app.userWith(
      catalog.filter((slug) => slug !== 'view-role'),
      'no-view-role',
    );
    const bad = await app.request('GET', '/api/roles?page=abc', { token: without });
    assert.equal(bad.status, 403, bad.text);
    const good = await app.request('GET', '/api/roles?page=1', { token: without });
    assert.equal(good.status, 403, good.text);
    assert.equal((await app.request('GET', '/api/roles?page=abc')).status, 401);
    const allowed = await app.request('GET', '/api/roles?page=abc', { token: owner });
    assert.equal(allowed.status, 422, allowed.text);
    assert.ok(allowed.body.errors.page, allowed.text);
  });

  it('refuses every route but sign-in without a token (401)', async () => {
    for (const route of routes.filter((r) => r.route.auth !== false)) {
      const res = await app.request(route.method, concretePath(route), {
        body: route.method === 'GET' ? undefined : {},
      });
      assert.equal(res.status, 401, `${route.method} ${route.path}`);
      assert.deepEqual(res.body, { success: false, message: 'Unauthenticated.' });
    }
  });
});

describe('granting permissions', () => {
  it('creating a role with permissions needs assign-role-permission as well as edit-role', async () => {
    const editor = await app.userWith(['edit-role']);
    const all = (await app.sql('SELECT id FROM permissions')).map((r) => r.id);
    const refused = await app.request('POST', '/api/roles', {
      token: editor,
      body: { title: 'Everything', permissions: all },
    });
    assert.equal(refused.status, 403);
    const viaGraphql = await app.graphql(
      'mutation($p: [Int!]) { createRole(input: { title: "Everything", permissions: $p }) { id } }',
      { p: all },
      editor,
    );
    assert.equal(viaGraphql.body.errors[0].extensions.code, 'FORBIDDEN');
    assert.equal((await app.sql("SELECT count(*)::int AS n FROM roles WHERE title = 'Everything'"))[0].n, 0);
    const empty = await app.request('POST', '/api/roles', { token: editor, body: { title: 'Empty role' } });
    assert.equal(empty.status, 201, empty.text);
    const granter = await app.userWith(['edit-role', 'assign-role-permission']);
    const granted = await app.request('POST', '/api/roles', {
      token: granter,
      body: { title: 'Granted role', permissions: all.slice(0, 2) },
    });
    assert.equal(granted.status, 201, granted.text);
  });

  it('no longer lists permissions that nothing enforces', () => {
    assert.ok(!catalog.includes('edit-spam-settings'));
    assert.ok(!catalog.includes('edit-ai-dashboard-settings'));
  });
});

describe('the provider account', () => {
  const set = (token: string, accountSid: string, authToken: string) =>
    app.graphql(
      'mutation($s: String!, $t: String!) { setTelcoAccount(accountSid: $s, authToken: $t) { accountSid balance } }',
      { s: accountSid, t: authToken },
      token,
    );

  it('is the Owner role alone: a Supervisor with every grantable permission is refused', async () => {
    const supervisor = await app.login('supervisor@acme.test');
    const [before] = await app.sql(
      'SELECT account_sid, auth_token_sealed FROM telco_accounts t JOIN companies c ON c.id = t.company_id WHERE c.name = $1',
      ['Acme Agency'],
    );
    const res = await set(supervisor, `AC${'a'.repeat(32)}`, 'f'.repeat(32));
    assert.equal(res.body.errors[0].extensions.code, 'FORBIDDEN');
    const allPermissions = await app.userWith(catalog, 'everything');
    assert.equal(
      (await set(allPermissions, `AC${'a'.repeat(32)}`, 'f'.repeat(32))).body.errors[0].extensions.code,
      'FORBIDDEN',
    );
    const [after] = await app.sql(
      'SELECT account_sid, auth_token_sealed FROM telco_accounts t JOIN companies c ON c.id = t.company_id WHERE c.name = $1',
      ['Acme Agency'],
    );
    assert.deepEqual(after, before);
  });

  it('checks the account sid before calling the provider, and encodes it when it does', async () => {
    for (const sid of ['AC123', '../../x', `AC${'g'.repeat(32)}`, `AC${'a'.repeat(31)}/`]) {
      const res = await set(owner, sid, 'token');
      assert.equal(res.body.errors[0].extensions.code, 'BAD_USER_INPUT', sid);
      assert.deepEqual(Object.keys(res.body.errors[0].extensions.errors), ['accountSid'], sid);
    }
  });

  it('is rate limited per company', async () => {
    const gamma = await app.login('owner@gamma.test');
    const codes: string[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await set(gamma, `AC${'b'.repeat(32)}`, 'wrong-token');
      codes.push(res.body.errors[0].extensions.code);
    }
    assert.deepEqual(codes.slice(0, 10), Array(10).fill('UNPROCESSABLE'), codes.join(','));
    assert.equal(codes[10], 'RATE_LIMITED');
  });
});

describe('tokens', () => {
  const sign = (claims: Record<string, unknown>, options: jwt.SignOptions = {}) =>
    jwt.sign(claims, TEST_JWT_SECRET, {
      algorithm: 'HS256',
      issuer: ISSUER,
      audience: AUDIENCE,
      jwtid: randomUUID(),
      ...options,
    });
  const me = (token: string) => app.request('GET', '/api/me', { token });

  it('refuses a token without exp, without iat, or older than the configured lifetime', async () => {
    const [row] = await app.sql("SELECT id, company_id FROM users WHERE email = 'owner@acme.test'");
    const base = { cid: row.company_id };
    const opts = { subject: String(row.id) };
    const good = sign(base, { ...opts, expiresIn: 3600 });
    assert.equal((await me(good)).status, 200, 'the control token is accepted');
    const noExp = sign(base, opts);
    assert.equal((await me(noExp)).status, 401);
    const noIat = sign({ ...base, exp: Math.floor(Date.now() / 1000) + 3600 }, { ...opts, noTimestamp: true });
    assert.equal((await me(noIat)).status, 401);
    const old = sign({ ...base, iat: Math.floor(Date.now() / 1000) - 2 * 86_400 }, { ...opts, expiresIn: 30 * 86_400 });
    assert.equal((await me(old)).status, 401, 'issued two days ago with a 24 h lifetime');
  });

  it('logs out any accepted token, and the token is refused afterwards', async () => {
    const token = await app.userWith([], 'logout');
    const res = await app.request('POST', '/api/logout', { token });
    assert.equal(res.status, 200, res.text);
    assert.equal((await me(token)).status, 401);
    const again = await app.request('POST', '/api/logout', { token });
    assert.equal(again.status, 401);
  });
});
