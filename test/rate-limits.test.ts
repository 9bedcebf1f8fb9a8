import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { DEMO_PASSWORD } from '../src/seed/demo.js';
import { startTestApp, type ApiResponse, type TestApp } from './helpers/app.js';
import { kill, startWorker } from './helpers/worker.js';

// The API's rate limits: a token's budget and its company's, spent in points
// by REST, /graphql and subscribes alike, told in RateLimit-Policy and
// RateLimit on every answer, refused with 429 and Retry-After, and shared by
// every API process.

const run = promisify(execFile);
let app: TestApp;

before(async () => {
  app = await startTestApp({ API_LIMIT_PER_TOKEN: '12/1m', API_LIMIT_PER_COMPANY: '1000/1m' });
});
after(async () => {
  await app?.close();
});

/** A new sign-in: a token of its own, so a budget of its own. */
async function signIn(email: string, baseUrl = app.url): Promise<string> {
  const response = await fetch(`${baseUrl}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: DEMO_PASSWORD }),
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('ratelimit'), null, 'signing in spends nothing');
  return ((await response.json()) as { token: string }).token;
}

/** The RateLimit field read back: remaining points and seconds to the window's end, per budget. */
function standing(response: { headers: Headers }): Record<string, { r: number; t: number }> {
  const field = response.headers.get('ratelimit');
  assert.ok(field, 'the answer carries RateLimit');
  const out: Record<string, { r: number; t: number }> = {};
  for (const item of field.split(',')) {
    const match = /^\s*"(\w+)";r=(\d+);t=(\d+)\s*$/.exec(item);
    assert.ok(match, `a RateLimit item: ${item}`);
    out[match[1]] = { r: Number(match[2]), t: Number(match[3]) };
    assert.ok(out[match[1]].t >= 1 && out[match[1]].t <= 60, `t=${match[3]}`);
  }
  return out;
}

const ROLES_PAGE = '{ roles(page: 1, perPage: 15) { records { id } } }';
/** Three pages of a hundred roles: a cost over 1,000, so one point more than a cheap read. */
// Ten pages of 100 roles: 10 × (1 + 100) = 1,010 of GraphQL cost, so one point more than a read.
const EXPENSIVE = `{ ${'abcdefghij'
  .split('')
  .map((alias) => `${alias}: roles(page: 1, perPage: 100) { records { id title createdAt updatedAt } }`)
  .join(' ')} }`;

describe('rate limits', () => {
  it('every answer to a signed-in caller says where its budgets stand; REST and GraphQL spend one budget, a write 5 points, an expensive query 2', async () => {
    const token = await signIn('owner@acme.test');
    const [role] = await app.sql(
      "SELECT r.id, r.title FROM roles r JOIN companies c ON c.id = r.company_id WHERE c.name = 'Acme Agency' AND NOT r.is_owner ORDER BY r.id LIMIT 1",
    );

    const page = await app.request('GET', '/api/roles', { token });
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('ratelimit-policy'), '"token";q=12;w=60, "company";q=1000;w=60');
    assert.equal(standing(page).token.r, 11);
    const graphql = await app.graphql(ROLES_PAGE, {}, token);
    assert.equal(graphql.status, 200);
    assert.equal(graphql.headers.get('ratelimit-policy'), '"token";q=12;w=60, "company";q=1000;w=60');
    assert.equal(standing(graphql).token.r, 10);
    const renamed = await app.request('PUT', `/api/roles/${role.id}`, {
      token,
      body: { title: 'Renamed under a budget' },
    });
    assert.equal(renamed.status, 200);
    assert.equal(standing(renamed).token.r, 5);
    const expensive = await app.graphql(EXPENSIVE, {}, token);
    assert.equal(expensive.status, 200);
    assert.equal(expensive.body.data.a.records.length > 0, true);
    assert.equal(standing(expensive).token.r, 3);

    // A write costs 5 and 3 are left: refused over GraphQL, and nothing is changed.
    const refused = await app.graphql(
      'mutation($id: ID!) { updateRole(id: $id, input: { title: "Not renamed" }) { id } }',
      { id: String(role.id) },
      token,
    );
    assert.equal(refused.status, 429);
    assert.equal(refused.body.errors[0].extensions.code, 'RATE_LIMITED');
    assert.match(
      refused.body.errors[0].message,
      /^This token's rate limit has 3 of its 12 points per 60 seconds left, and this request costs 5\. Try again in \d+ seconds\.$/,
    );
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(standing(refused).token.r, 3);
    assert.equal(
      (await app.sql('SELECT title FROM roles WHERE id = $1', [role.id]))[0].title,
      'Renamed under a budget',
    );

    // The 3 points left still buy reads; then REST refuses with the spec's body.
    for (const left of [2, 1, 0])
      assert.equal(standing(await app.request('GET', '/api/roles', { token })).token.r, left);
    const spent = await app.request('GET', '/api/roles', { token });
    assert.equal(spent.status, 429);
    assert.match(
      spent.body.message,
      /^This token's rate limit of 12 points per 60 seconds is spent\. Try again in \d+ seconds\.$/,
    );
    assert.deepEqual(Object.keys(spent.body), ['success', 'message']);
    assert.equal(spent.body.success, false);
    assert.ok(Number(spent.headers.get('retry-after')) >= 1);
    assert.equal(standing(spent).token.r, 0);
    // A bad token is 401 and spends nothing; a malformed request of a spent token is still 429.
    assert.equal((await app.request('GET', '/api/roles', { token: 'not-a-token' })).status, 401);
    assert.equal((await app.request('PUT', '/api/roles/not-an-id', { token, body: { title: 'x' } })).status, 429);

    // Another sign-in of the same user has a budget of its own.
    const other = await signIn('owner@acme.test');
    const fresh = await app.request('GET', '/api/roles', { token: other });
    assert.equal(fresh.status, 200);
    assert.equal(standing(fresh).token.r, 11);
  });

  it("a company's budget is shared by its tokens; a token refused by it gets its points back", async () => {
    // Gamma's own budget of 8 points (set before any of its requests: API processes read it at most a minute late).
    await app.sql("UPDATE companies SET api_limit_per_company = 8 WHERE name = 'Gamma Solar'");
    const [first, second] = [await signIn('owner@gamma.test'), await signIn('owner@gamma.test')];
    for (let i = 0; i < 5; i++) assert.equal((await app.request('GET', '/api/roles', { token: first })).status, 200);
    const read = await app.request('GET', '/api/roles', { token: second });
    assert.equal(read.headers.get('ratelimit-policy'), '"token";q=12;w=60, "company";q=8;w=60');
    assert.deepEqual([standing(read).token.r, standing(read).company.r], [11, 2]);
    const write = await app.request('POST', '/api/roles', {
      token: second,
      body: { title: 'Over the company budget' },
    });
    assert.equal(write.status, 429);
    assert.match(
      write.body.message,
      /^This company's rate limit has 2 of its 8 points per 60 seconds left, and this request costs 5\./,
    );
    assert.deepEqual([standing(write).token.r, standing(write).company.r], [11, 2]);
    assert.equal(
      (await app.sql("SELECT count(*)::int AS n FROM roles WHERE title = 'Over the company budget'"))[0].n,
      0,
    );
    const after = await app.request('GET', '/api/roles', { token: second });
    assert.deepEqual([after.status, standing(after).token.r, standing(after).company.r], [200, 10, 1]);
  });

  it('a subscribe spends a point; a spent budget refuses it with RATE_LIMITED', async () => {
    const token = await signIn('owner@acme.test');
    for (let i = 0; i < 11; i++) assert.equal((await app.request('GET', '/api/roles', { token })).status, 200);
    const client = createClient({
      url: `${app.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    try {
      const subscribe = () =>
        new Promise<{ ok: boolean; errors?: Array<{ message: string; extensions?: { code?: string } }> }>((resolve) => {
          const stop = client.subscribe(
            { query: 'subscription { events { type } }' },
            {
              next: () => undefined,
              error: (errors) => resolve({ ok: false, errors: errors as never }),
              complete: () => resolve({ ok: true }),
            },
          );
          // A subscription still open after a second and a half was let through (a refusal comes at once, even on a busy machine).
          setTimeout(() => (stop(), resolve({ ok: true })), 1500);
        });
      assert.deepEqual(await subscribe(), { ok: true });
      const refused = await subscribe();
      assert.equal(refused.ok, false);
      assert.equal(refused.errors?.[0].extensions?.code, 'RATE_LIMITED');
      assert.match(refused.errors?.[0].message ?? '', /^This token's rate limit of 12 points per 60 seconds is spent/);
    } finally {
      await client.dispose();
    }
  });

  it('npm run limits gives a company budgets of its own, and back the defaults; bad input changes nothing', async () => {
    const cli = (...args: string[]) =>
      run(process.execPath, [path.resolve('dist/src/limits/cli.js'), ...args], {
        env: {
          PATH: process.env.PATH ?? '',
          NODE_ENV: 'test',
          DATABASE_URL: app.running.databaseUrl,
          JWT_SECRET: app.config.jwtSecret,
          APP_KEY: app.config.appKey.toString('base64'),
          LOG_LEVEL: 'warn',
          API_LIMIT_PER_TOKEN: '12/1m',
          API_LIMIT_PER_COMPANY: '1000/1m',
        },
      });
    const set = await cli('--company', 'Beta Clinic', '--per-token', '3');
    assert.match(
      set.stdout,
      /^Beta Clinic \(id \d+\):\n {2}per token: {3}3 points per 60 s \(its own\)\n {2}per company: 1000 points per 60 s \(the default\)\n$/,
    );
    const token = await signIn('owner@beta.test');
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 4; i++) answers.push(await app.request('GET', '/api/roles', { token }));
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 429],
    );
    assert.equal(answers[0].headers.get('ratelimit-policy'), '"token";q=3;w=60, "company";q=1000;w=60');

    for (const [args, message] of [
      [
        ['--company', 'Beta Clinic', '--per-token', '0'],
        /--per-token must be a whole number of points from 1 to 100000000, or default \(got "0"\)/,
      ],
      [['--company', 'No Such Company', '--per-token', '5'], /No company named No Such Company\./],
      [['--per-token', '5'], /--company is required\./],
    ] as const) {
      await assert.rejects(
        cli(...args),
        (error: { code: number; stderr: string }) => error.code === 2 && message.test(error.stderr),
      );
    }
    const [beta] = await app.sql("SELECT id, api_limit_per_token FROM companies WHERE name = 'Beta Clinic'");
    assert.equal(beta.api_limit_per_token, 3);
    const back = await cli('--company', String(beta.id), '--per-token', 'default');
    assert.match(back.stdout, /per token: {3}12 points per 60 s \(the default\)/);
    assert.equal(
      (await app.sql('SELECT api_limit_per_token FROM companies WHERE id = $1', [beta.id]))[0].api_limit_per_token,
      null,
    );
  });
});

describe('rate limits switched off', () => {
  it('a budget set to off is neither charged nor told; with both off no answer carries the fields', async () => {
    for (const [env, policy] of [
      [{ API_LIMIT_PER_TOKEN: 'off', API_LIMIT_PER_COMPANY: '5/1m' }, '"company";q=5;w=60'],
      [{ API_LIMIT_PER_TOKEN: 'off', API_LIMIT_PER_COMPANY: 'off' }, null],
    ] as const) {
      const other = await startTestApp(env);
      try {
        const token = await other.login('owner@acme.test');
        const answers: ApiResponse[] = [];
        for (let i = 0; i < 6; i++) answers.push(await other.request('GET', '/api/roles', { token }));
        assert.equal(answers[0].headers.get('ratelimit-policy'), policy);
        assert.deepEqual(
          answers.map((a) => a.status),
          policy ? [200, 200, 200, 200, 200, 429] : [200, 200, 200, 200, 200, 200],
        );
        if (!policy) assert.equal(answers[5].headers.get('ratelimit'), null);
      } finally {
        await other.close();
      }
    }
  });
});

describe('rate limits across API processes', () => {
  it('two processes spend one budget: of 30 requests at once, spread over both, exactly 12 pass', async () => {
    const second = await startWorker(app, {
      PROCESS_ROLE: 'api',
      API_LIMIT_PER_TOKEN: '12/1m',
      API_LIMIT_PER_COMPANY: '1000/1m',
    });
    try {
      const token = await signIn('owner@acme.test');
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          fetch(`${i % 2 === 0 ? app.url : second.url}/api/roles`, { headers: { authorization: `Bearer ${token}` } }),
        ),
      );
      const statuses = answers.map((a) => a.status);
      assert.equal(statuses.filter((s) => s === 200).length, 12, statuses.join(' '));
      assert.equal(statuses.filter((s) => s === 429).length, 18, statuses.join(' '));
      // One at a time, in turn: each process passes six, then both refuse.
      const turns = await signIn('owner@acme.test');
      const inTurn: Array<[number, string | null]> = [];
      for (let i = 0; i < 14; i++) {
        const answer = await fetch(`${i % 2 === 0 ? app.url : second.url}/api/roles`, {
          headers: { authorization: `Bearer ${turns}` },
        });
        inTurn.push([answer.status, answer.headers.get('ratelimit')]);
      }
      assert.deepEqual(
        inTurn.map(([status]) => status),
        [...Array(12).fill(200), 429, 429],
      );
      // Each process tells what it knows: its own spending, and the other's as of its last lease.
      assert.match(inTurn[11][1] ?? '', /^"token";r=0;/);
      for (const url of [app.url, second.url]) {
        const more = await fetch(`${url}/api/roles`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(more.status, 429);
        assert.equal(more.headers.get('ratelimit-policy'), '"token";q=12;w=60, "company";q=1000;w=60');
        assert.ok(Number(more.headers.get('retry-after')) >= 1);
      }
    } finally {
      await kill(second);
    }
  });
});
