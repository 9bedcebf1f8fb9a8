import assert from 'node:assert/strict';
import jwt from 'jsonwebtoken';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AUDIENCE, ISSUER } from '../src/auth/tokens.js';
import { DEMO_PASSWORD } from '../src/seed/demo.js';
import { TEST_JWT_SECRET, startTestApp, type TestApp } from './helpers/app.js';

let app: TestApp;

before(async () => {
  app = await startTestApp({ LOGIN_LIMIT_PER_EMAIL: '5/15m', LOGIN_LIMIT_PER_IP: '1000/1m' });
});
after(() => app.close());

const login = (body: unknown) => app.request('POST', '/api/login', { body });

describe('POST /api/login', () => {
  it('signs in with the spec body', async () => {
    const res = await login({ email: 'owner@acme.test', password: DEMO_PASSWORD });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['success', 'message', 'token']);
    assert.equal(res.body.success, true);
    assert.equal(res.body.message, 'Login successful');
    const claims = jwt.verify(res.body.token, TEST_JWT_SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.aud, AUDIENCE);
    assert.ok(claims.jti && claims.sub && typeof claims.cid === 'number');
    assert.equal(claims.exp! - claims.iat!, 86_400);
  });

  it('matches the email case-insensitively', async () => {
    const res = await login({ email: 'Owner@ACME.test', password: DEMO_PASSWORD });
    assert.equal(res.status, 200);
  });

  it('answers a wrong password or unknown email with 404 "invalid credentials."', async () => {
    for (const body of [
      { email: 'owner@gamma.test', password: 'wrong' },
      { email: 'nobody@nowhere.test', password: DEMO_PASSWORD },
    ]) {
      const res = await login(body);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { success: false, message: 'invalid credentials.' });
    }
  });

  it('answers missing or mistyped fields with 422 and field errors', async () => {
    const missing = await login({});
    assert.equal(missing.status, 422);
    assert.equal(missing.body.success, false);
    assert.deepEqual(missing.body.errors, {
      email: ['The email field is required.'],
      password: ['The password field is required.'],
    });
    const onlyEmail = await login({ email: 'owner@acme.test' });
    assert.equal(onlyEmail.status, 422);
    assert.deepEqual(Object.keys(onlyEmail.body.errors), ['password']);
    const typed = await login({ email: 42, password: ['x'] });
    assert.equal(typed.status, 422);
    assert.deepEqual(typed.body.errors, {
      email: ['The email field must be a string.'],
      password: ['The password field must be a string.'],
    });
    const notEmail = await login({ email: 'not-an-email', password: 'x' });
    assert.equal(notEmail.status, 422);
    assert.deepEqual(notEmail.body.errors, { email: ['The email field must be a valid email address.'] });
  });

  it('requires a JSON body', async () => {
    const res = await app.request('POST', '/api/login', {
      raw: 'email=a&password=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'Content-Type must be application/json.');
  });

  it('is also a GraphQL mutation with the same answer', async () => {
    const res = await app.graphql(
      'mutation($e: String!, $p: String!) { login(email: $e, password: $p) { success message token } }',
      { e: 'owner@beta.test', p: DEMO_PASSWORD },
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.data.login.success, true);
    assert.equal(res.body.data.login.message, 'Login successful');
    const bad = await app.graphql('mutation { login(email: "owner@beta.test", password: "nope") { token } }');
    assert.equal(bad.body.errors[0].message, 'invalid credentials.');
    assert.equal(bad.body.errors[0].extensions.code, 'INVALID_CREDENTIALS');
    assert.equal(bad.body.errors[0].extensions.http.status, 404);
  });
});

describe('GET /api/me and tokens', () => {
  it('returns the user, company, role and permissions', async () => {
    const token = await app.login('supervisor@acme.test');
    const res = await app.request('GET', '/api/me', { token });
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    assert.equal(res.body.data.user.email, 'supervisor@acme.test');
    assert.equal(res.body.data.company.name, 'Acme Agency');
    assert.equal(res.body.data.company.time_zone, 'America/New_York');
    assert.equal(res.body.data.company.is_agency, true);
    assert.equal(res.body.data.role.title, 'Supervisor');
    assert.ok(res.body.data.permissions.includes('view-phone-numbers'));
    assert.ok(!res.body.data.permissions.includes('view-role'));
  });

  it('refuses a missing, malformed, expired, foreign-key or other-algorithm token with 401', async () => {
    const valid = jwt.decode(await app.login('owner@acme.test')) as jwt.JwtPayload;
    const claims = { cid: valid.cid, sub: valid.sub, jti: 'x1', iss: ISSUER, aud: AUDIENCE };
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const tokens: Array<[string, string | undefined]> = [
      ['missing', undefined],
      ['malformed', 'not-a-jwt'],
      [
        'expired',
        jwt.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 10 }, TEST_JWT_SECRET, { algorithm: 'HS256' }),
      ],
      [
        'other key',
        jwt.sign(claims, 'another-secret-another-secret-another-secret', { algorithm: 'HS256', expiresIn: 600 }),
      ],
      ['HS512', jwt.sign(claims, TEST_JWT_SECRET, { algorithm: 'HS512', expiresIn: 600 })],
      ['RS256', jwt.sign(claims, privateKey, { algorithm: 'RS256', expiresIn: 600 })],
      [
        'none',
        `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, exp: 9e9 })).toString('base64url')}.`,
      ],
      [
        'wrong audience',
        jwt.sign({ ...claims, aud: 'elsewhere' }, TEST_JWT_SECRET, { algorithm: 'HS256', expiresIn: 600 }),
      ],
    ];
    for (const [name, token] of tokens) {
      const res = await app.request('GET', '/api/me', { token });
      assert.equal(res.status, 401, name);
      assert.deepEqual(res.body, { success: false, message: 'Unauthenticated.' }, name);
    }
    const graphql = await app.graphql('{ me { user { email } } }', {}, 'not-a-jwt');
    assert.equal(graphql.body.errors[0].extensions.code, 'UNAUTHENTICATED');
  });

  it('accepts a token signed correctly by the same key (the control case)', async () => {
    const valid = jwt.decode(await app.login('owner@acme.test')) as jwt.JwtPayload;
    const token = jwt.sign({ cid: valid.cid, jti: 'control' }, TEST_JWT_SECRET, {
      algorithm: 'HS256',
      subject: valid.sub,
      issuer: ISSUER,
      audience: AUDIENCE,
      expiresIn: 600,
    });
    assert.equal((await app.request('GET', '/api/me', { token })).status, 200);
  });

  it("gives Me the user's id, so a normalized cache keeps one Me per user", async () => {
    const token = (await login({ email: 'owner@gamma.test', password: DEMO_PASSWORD })).body.token;
    const me = await app.graphql('{ me { id user { id email } } }', {}, token);
    assert.equal(me.body.data.me.id, String(me.body.data.me.user.id));
    const [user] = await app.sql("SELECT id FROM users WHERE email = 'owner@gamma.test'");
    assert.equal(me.body.data.me.id, String(user.id));
  });

  it('logout revokes the token for REST and GraphQL, and only that token', async () => {
    const first = (await login({ email: 'owner@gamma.test', password: DEMO_PASSWORD })).body.token;
    const second = (await login({ email: 'owner@gamma.test', password: DEMO_PASSWORD })).body.token;
    const out = await app.request('POST', '/api/logout', { token: first });
    assert.equal(out.status, 200);
    assert.deepEqual(out.body, { success: true, message: 'Logged out successfully.' });
    assert.equal((await app.request('GET', '/api/me', { token: first })).status, 401);
    const graphql = await app.graphql('{ me { user { email } } }', {}, first);
    assert.equal(graphql.body.errors[0].extensions.code, 'UNAUTHENTICATED');
    assert.equal((await app.request('GET', '/api/me', { token: second })).status, 200);
    const rows = await app.sql('SELECT count(*)::int AS n FROM revoked_tokens');
    assert.equal(rows[0].n, 1);
  });
});

describe('login rate limit', () => {
  it('limits failed attempts per email, counting GraphQL aliases one by one', async () => {
    const email = 'owner@beta.test';
    // Five failures packed into one GraphQL request through aliases.
    const aliases = [1, 2, 3, 4, 5]
      .map((i) => `a${i}: login(email: "${email}", password: "wrong${i}") { token }`)
      .join(' ');
    const packed = await app.graphql(`mutation { ${aliases} }`);
    assert.equal(packed.body.errors.length, 5);
    const blocked = await login({ email, password: DEMO_PASSWORD });
    assert.equal(blocked.status, 429, 'the right password is refused once the email is locked');
    assert.equal(blocked.body.success, false);
    assert.match(blocked.body.message, /Too many attempts/);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    assert.ok(retryAfter > 0 && retryAfter <= 900, `Retry-After ${retryAfter}`);
    const otherEmail = await login({ email: 'owner@acme.test', password: DEMO_PASSWORD });
    assert.equal(otherEmail.status, 200, 'another email is not affected');
  });

  it('limits attempts per IP address, batched GraphQL operations included', async () => {
    const limited = await startTestApp({ LOGIN_LIMIT_PER_IP: '3/1m' });
    try {
      const op = { query: 'mutation { login(email: "owner@acme.test", password: "switchboard") { success } }' };
      const batch = await limited.request('POST', '/graphql', { body: [op, op, op, op] });
      assert.equal(batch.status, 200);
      const codes = batch.body.map((r: any) => r.errors?.[0]?.extensions?.code ?? 'OK');
      // Batched operations may run concurrently: which one is refused may vary, how many may not.
      assert.deepEqual(codes.sort(), ['OK', 'OK', 'OK', 'RATE_LIMITED']);
      const rest = await limited.request('POST', '/api/login', {
        body: { email: 'owner@acme.test', password: DEMO_PASSWORD },
      });
      assert.equal(rest.status, 429);
      assert.ok(Number(rest.headers.get('retry-after')) > 0);
    } finally {
      await limited.close();
    }
  });
});
