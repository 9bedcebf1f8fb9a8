import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { adminQuery, startTestApp, type TestApp } from './helpers/app.js';

let app: TestApp;
let token: string;

before(async () => {
  app = await startTestApp();
  token = await app.login('owner@acme.test');
});
after(() => app.close());

describe('the error model over HTTP', () => {
  it('400 for malformed JSON', async () => {
    const res = await app.request('PUT', '/api/roles/1', {
      token,
      raw: '{"title":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { success: false, message: 'Malformed JSON in request body.' });
  });

  it('reads a JSON body however it comes: UTF-8 with a BOM, chunked, gzip-compressed; another charset is 400', async () => {
    const [{ id }] = await app.sql(
      "SELECT id FROM roles WHERE company_id = (SELECT id FROM companies WHERE name = 'Acme Agency') AND NOT is_owner LIMIT 1",
    );
    const put = (body: Buffer, headers: Record<string, string>) =>
      new Promise<{ status: number; body: { success: boolean; message?: string } }>((resolve, reject) => {
        const req = httpRequest(
          `${app.url}/api/roles/${id}`,
          { method: 'PUT', headers: { authorization: `Bearer ${token}`, ...headers } },
          (res) => {
            const parts: Buffer[] = [];
            res.on('data', (part: Buffer) => parts.push(part));
            res.on('end', () =>
              resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(parts).toString()) }),
            );
          },
        );
        req.on('error', reject);
        // Chunked when no length is given: the body in two writes.
        if (headers['content-length'] === undefined) {
          req.write(body.subarray(0, 5));
          setTimeout(() => req.end(body.subarray(5)), 20);
        } else req.end(body);
      });
    const json = (title: string) => Buffer.from(JSON.stringify({ title }));
    const title = async () => (await app.sql('SELECT title FROM roles WHERE id = $1', [id]))[0].title;
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json('Bom role')]);
    const bom = await put(withBom, {
      'content-type': 'application/json; charset=UTF-8',
      'content-length': String(withBom.length),
    });
    assert.equal(bom.status, 200, JSON.stringify(bom.body));
    assert.equal(await title(), 'Bom role');
    const chunked = await put(json('Chunked role'), { 'content-type': 'application/json' });
    assert.equal(chunked.status, 200, JSON.stringify(chunked.body));
    assert.equal(await title(), 'Chunked role');
    const zipped = gzipSync(json('Zipped role'));
    const gzip = await put(zipped, {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'content-length': String(zipped.length),
    });
    assert.equal(gzip.status, 200, JSON.stringify(gzip.body));
    assert.equal(await title(), 'Zipped role');
    const latin = json('Latin role');
    const other = await put(latin, {
      'content-type': 'application/json; charset=latin1',
      'content-length': String(latin.length),
    });
    assert.deepEqual(other, { status: 400, body: { success: false, message: 'Unsupported request body encoding.' } });
    const broken = Buffer.from('{"title": "Half');
    const malformed = await put(broken, {
      'content-type': 'application/json',
      'content-length': String(broken.length),
    });
    assert.deepEqual(malformed, { status: 400, body: { success: false, message: 'Malformed JSON in request body.' } });
    assert.equal(await title(), 'Zipped role', 'the refused bodies changed nothing');
  });

  it('400 for a body that is not JSON', async () => {
    const res = await app.request('POST', '/api/roles', {
      token,
      raw: 'title=x',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'Content-Type must be application/json.');
  });

  it('413 for a body over 1 MiB, and nothing is created', async () => {
    const before = (await app.sql('SELECT count(*)::int AS n FROM roles'))[0].n;
    const res = await app.request('POST', '/api/roles', {
      token,
      body: { title: 'Big', padding: 'x'.repeat(1024 * 1024) },
    });
    assert.equal(res.status, 413);
    assert.deepEqual(res.body, { success: false, message: 'The request body is larger than 1 MiB.' });
    assert.equal((await app.sql('SELECT count(*)::int AS n FROM roles'))[0].n, before);
  });

  it('a body just under 1 MiB is accepted', async () => {
    const res = await app.request('POST', '/api/roles', {
      token,
      body: { title: 'Padded', padding: 'x'.repeat(1024 * 1024 - 100) },
    });
    assert.equal(res.status, 201);
  });

  it('404 for an unknown route, 405 with Allow for a known path and wrong method', async () => {
    const unknown = await app.request('GET', '/api/nothing-here', { token });
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { success: false, message: 'Route not found.' });
    const wrong = await app.request('PATCH', '/api/roles', { token });
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get('allow'), 'GET, POST');
    assert.equal(wrong.body.success, false);
    // A parameter that is no valid percent-encoding names nothing; a path of another case or with an empty segment is
    // another path.
    for (const path of ['/api/roles/%E0%A4%A', '/api/Roles', '/api//roles'])
      assert.deepEqual((await app.request('GET', path, { token })).body, {
        success: false,
        message: 'Route not found.',
      });
    const outside = await app.request('GET', '/nowhere');
    assert.equal(outside.status, 404);
    // Whatever the body: a form (as the provider posts), under the callbacks' prefix or not, and a body over 1 MiB.
    for (const path of ['/api/telco/voice/nothing', '/api/telco/nothing', '/api/nothing-here']) {
      const form = await app.request('POST', path, {
        token,
        raw: 'CallSid=CA1&From=%2B14155550100',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.deepEqual([form.status, form.body], [404, { success: false, message: 'Route not found.' }], path);
    }
    const big = await app.request('POST', '/api/nothing-here', {
      token,
      body: { padding: 'x'.repeat(2 * 1024 * 1024) },
    });
    assert.equal(big.status, 404);
    const formOnRow = await app.request('PATCH', '/api/roles', {
      token,
      raw: 'title=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(formOnRow.status, 405);
  });

  it('unknown body fields are ignored, never assigned', async () => {
    const res = await app.request('POST', '/api/roles', {
      token,
      body: { title: 'Plain', is_owner: true, isOwner: true, company_id: 3 },
    });
    assert.equal(res.status, 201);
    const [row] = await app.sql('SELECT is_owner, company_id FROM roles WHERE id = $1', [res.body.data.id]);
    assert.equal(row.is_owner, false);
    const [acme] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
    assert.equal(row.company_id, acme.id);
  });

  it('500 is "Server error." with a request id, never SQL or a stack', async () => {
    const broken = await startTestApp();
    try {
      const owner = await broken.login('owner@acme.test');
      await broken.sql('ALTER TABLE roles RENAME COLUMN title TO title_gone');
      const res = await broken.request('GET', '/api/roles', { token: owner, headers: { 'x-request-id': 'trace-123' } });
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, { success: false, message: 'Server error.', request_id: 'trace-123' });
      assert.doesNotMatch(res.text, /select|title_gone|at /i);
      const gql = await broken.graphql('{ roles { records { id } } }', {}, owner);
      assert.equal(gql.body.errors[0].message, 'Server error.');
      assert.equal(gql.body.errors[0].extensions.code, 'INTERNAL_SERVER_ERROR');
      assert.ok(gql.body.errors[0].extensions.requestId);
      assert.doesNotMatch(gql.text, /select|title_gone/i);
    } finally {
      await broken.close();
    }
  });
});

describe('field names in validation errors', () => {
  it("GraphQL names its arguments, REST the spec's fields, with the same words", async () => {
    const gqlPage = await app.graphql('{ webhooks(perPage: 0) { records { id } } }', {}, token);
    assert.deepEqual(gqlPage.body.errors[0].extensions.errors, { perPage: ['The per page field must be at least 1.'] });
    const restPage = await app.request('GET', '/api/webhooks?per_page=0', { token });
    assert.equal(restPage.status, 422);
    assert.deepEqual(restPage.body.errors, { per_page: ['The per page field must be at least 1.'] });

    const input = {
      title: 'Names',
      url: 'https://names.example/hook',
      events: ['call_ended'],
      listSelection: 'Custom',
      formData: ['phone_number', 'shoe_size'],
    };
    const gqlHook = await app.graphql(
      'mutation ($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } } }',
      { input },
      token,
    );
    assert.deepEqual(Object.keys(gqlHook.body.errors[0].extensions.errors), ['formData.1']);
    const restHook = await app.request('POST', '/api/webhooks', {
      token,
      body: {
        title: 'Names',
        url: 'https://names.example/hook',
        events: ['call.ended'],
        list_selection: 'Custom',
        form_data: ['phone_number', 'shoe_size'],
      },
    });
    assert.equal(restHook.status, 422);
    assert.deepEqual(restHook.body.errors, { 'form_data.1': gqlHook.body.errors[0].extensions.errors['formData.1'] });
    assert.match(
      restHook.body.errors['form_data.1'][0],
      /^The form data field does not accept "shoe_size"; it accepts "phone_number", .* or "custom_fields\.<key>"\.$/,
    );
  });
});

describe('probes, metrics, request ids', () => {
  it('/healthz and /readyz', async () => {
    const health = await app.request('GET', '/healthz');
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: 'ok' });
    const ready = await app.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready', checks: { database: 'ok', jobs: 'ok' } });
  });

  it('/metrics reports HTTP latency by route', async () => {
    await app.request('GET', '/api/roles', { token });
    const res = await app.request('GET', '/metrics');
    assert.equal(res.status, 200);
    assert.match(res.text, /http_request_duration_seconds_count\{method="GET",route="\/api\/roles",status="200"\} \d+/);
    assert.match(res.text, /webhook_attempts_total/);
    assert.match(res.text, /job_lag_seconds/);
  });

  it("/metrics reports each unit of work's wait for a connection, by pool", async () => {
    const count = async () =>
      Number(
        /db_pool_wait_seconds_count\{pool="writer"\} (\d+)/.exec((await app.request('GET', '/metrics')).text)?.[1] ?? 0,
      );
    const before = await count();
    const made = await app.request('POST', '/api/roles', { token, body: { title: `Waited ${Date.now()}` } });
    assert.equal(made.status, 201, made.text);
    assert.ok((await count()) > before, 'the write waited for its connection, and said how long');
  });

  it('measures unknown paths under one series, never their raw path', async () => {
    const random = Array.from({ length: 5 }, (_, i) => `/no-such-${i}-${Date.now()}`);
    for (const path of [...random, ...random.map((p) => `/api${p}`)])
      assert.equal((await app.request('GET', path)).status, 404);
    const metrics = (await app.request('GET', '/metrics')).text;
    for (const path of random) assert.ok(!metrics.includes(path), `${path} became a series`);
    assert.match(metrics, /http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} \d+/);
    assert.match(metrics, /route="\/healthz"|route="\/readyz"/);
  });

  it('echoes a caller request id and makes one otherwise', async () => {
    const given = await app.request('GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    assert.equal(given.headers.get('x-request-id'), 'abc-123');
    const made = await app.request('GET', '/healthz');
    assert.match(made.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });
});

describe('API documents', () => {
  it('serves the committed OpenAPI document at /api/openapi.json', async () => {
    const res = await app.request('GET', '/api/openapi.json');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, JSON.parse(readFileSync('openapi.json', 'utf8')));
    assert.equal(res.body.openapi, '3.1.0');
    assert.ok(res.body.paths['/api/roles/update/{id}'].put);
    assert.ok(res.body.paths['/api/roles/{id}/permissions'].post);
    assert.deepEqual(res.body.paths['/api/roles'].get['x-permissions'], ['view-role']);
  });

  it('serves browsable docs with local assets only', async () => {
    const page = await app.request('GET', '/api/docs');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /html/);
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(sources.length >= 3);
    for (const source of sources) {
      assert.ok(source.startsWith('/api/docs/') || source === '/favicon.svg', `external asset ${source}`);
      const asset = await app.request('GET', source);
      assert.equal(asset.status, 200, source);
      assert.ok(asset.text.length > 100, source);
    }
  });
});

describe('response headers', () => {
  it('nosniff everywhere, no-store on API answers, WWW-Authenticate on a 401', async () => {
    const login = await app.request('POST', '/api/login', {
      body: { email: 'owner@acme.test', password: 'switchboard' },
    });
    assert.equal(login.headers.get('cache-control'), 'no-store');
    assert.equal(login.headers.get('x-content-type-options'), 'nosniff');
    const roles = await app.request('GET', '/api/roles', { token });
    assert.equal(roles.headers.get('cache-control'), 'no-store');
    const graphql = await app.graphql('{ me { user { id } } }', {}, token);
    assert.equal(graphql.headers.get('cache-control'), 'no-store');
    assert.equal((await app.request('GET', '/healthz')).headers.get('x-content-type-options'), 'nosniff');
    const unauthenticated = await app.request('GET', '/api/roles');
    assert.equal(unauthenticated.status, 401);
    assert.equal(unauthenticated.headers.get('www-authenticate'), 'Bearer realm="switchboard"');
  });

  it('API answers carry their length and no ETag; HEAD on a REST read gives the same headers and no body', async () => {
    const get = await fetch(`${app.url}/api/roles`, { headers: { authorization: `Bearer ${token}` } });
    const body = Buffer.from(await get.arrayBuffer());
    assert.equal(get.status, 200);
    assert.equal(get.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(Number(get.headers.get('content-length')), body.length);
    assert.equal(get.headers.get('etag'), null);
    assert.equal(JSON.parse(body.toString()).success, true);
    const head = await fetch(`${app.url}/api/roles`, { method: 'HEAD', headers: { authorization: `Bearer ${token}` } });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(body.length));
    assert.equal((await head.arrayBuffer()).byteLength, 0);
    const refused = await app.request('GET', '/api/no-such-route', { token });
    assert.equal(refused.status, 404);
    assert.equal(refused.headers.get('etag'), null);
    const graphql = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { user { id } } }' }),
    });
    const text = await graphql.text();
    assert.equal(graphql.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(Number(graphql.headers.get('content-length')), Buffer.byteLength(text));
    assert.equal(graphql.headers.get('etag'), null);
    assert.ok(JSON.parse(text).data.me.user.id);
  });
});

describe('HSTS', () => {
  it('every answer carries Strict-Transport-Security when PUBLIC_URL is https, and none on plain http', async () => {
    const secure = await startTestApp({ PUBLIC_URL: 'https://switchboard.example' });
    try {
      const token = await secure.login('owner@acme.test');
      const answers = [
        await secure.request('GET', '/healthz'),
        await secure.request('GET', '/api/roles', { token }),
        await secure.request('GET', '/api/roles'),
        await secure.request('GET', '/api/no-such-route'),
        await secure.request('GET', '/api/openapi.json'),
        await secure.graphql('{ me { user { email } } }', {}, token),
        await secure.request('GET', '/nowhere'),
      ];
      for (const res of answers)
        assert.equal(
          res.headers.get('strict-transport-security'),
          'max-age=31536000; includeSubDomains',
          `${res.status} ${res.text.slice(0, 80)}`,
        );
    } finally {
      await secure.close();
    }
    for (const path of ['/healthz', '/api/roles', '/api/openapi.json'])
      assert.equal((await app.request('GET', path)).headers.get('strict-transport-security'), null, path);
  });
});

describe('CORS, the metrics token and the root page', () => {
  it('answers preflights for /api and /graphql from listed origins only, with credentials', async () => {
    const corsApp = await startTestApp({
      CORS_ORIGINS: 'https://app.example.com,http://localhost:5173',
      METRICS_TOKEN: 'metrics-token-0123456789',
    });
    try {
      for (const path of ['/api/roles', '/graphql']) {
        const preflight = await fetch(`${corsApp.url}${path}`, {
          method: 'OPTIONS',
          headers: {
            origin: 'https://app.example.com',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization,content-type',
          },
        });
        assert.equal(preflight.status, 204, path);
        assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://app.example.com');
        assert.equal(preflight.headers.get('access-control-allow-credentials'), 'true');
        assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/);
        const stranger = await fetch(`${corsApp.url}${path}`, {
          method: 'OPTIONS',
          headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
        });
        assert.equal(stranger.headers.get('access-control-allow-origin'), null, 'an unlisted origin is not allowed');
      }
      const token = await corsApp.login('owner@acme.test');
      const actual = await fetch(`${corsApp.url}/api/roles`, {
        headers: { origin: 'http://localhost:5173', authorization: `Bearer ${token}` },
      });
      assert.equal(actual.status, 200);
      assert.equal(actual.headers.get('access-control-allow-origin'), 'http://localhost:5173');
      assert.match(actual.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/);
      const document = await fetch(`${corsApp.url}/api/openapi.json`, { headers: { origin: 'http://localhost:5173' } });
      assert.equal(
        document.headers.get('access-control-allow-origin'),
        'http://localhost:5173',
        'a cross-origin tool can read the document',
      );

      assert.equal((await corsApp.request('GET', '/metrics')).status, 401);
      assert.equal((await corsApp.request('GET', '/metrics', { token: 'wrong-token-000000000000' })).status, 401);
      const metrics = await corsApp.request('GET', '/metrics', { token: 'metrics-token-0123456789' });
      assert.equal(metrics.status, 200);
      assert.match(metrics.text, /http_request_duration_seconds/);
    } finally {
      await corsApp.close();
    }
  });

  it('answers a preflight without touching the database, even when it cannot be reached', async () => {
    const corsApp = await startTestApp({ CORS_ORIGINS: 'https://app.example.com' });
    try {
      // The app's database refuses every connection, and those it had are closed.
      await adminQuery(`ALTER DATABASE "${corsApp.database}" WITH ALLOW_CONNECTIONS false`);
      await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${corsApp.database}'`);
      for (const path of ['/api/roles', '/graphql', '/api/webhooks/1/test']) {
        const preflight = await fetch(`${corsApp.url}${path}`, {
          method: 'OPTIONS',
          headers: {
            origin: 'https://app.example.com',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization,content-type',
          },
        });
        assert.equal(preflight.status, 204, path);
        assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://app.example.com');
      }
    } finally {
      await adminQuery(`ALTER DATABASE "${corsApp.database}" WITH ALLOW_CONNECTIONS true`);
      await corsApp.close();
    }
  });

  it('sends no CORS headers when CORS_ORIGINS is unset', async () => {
    const res = await fetch(`${app.url}/api/roles`, {
      headers: { origin: 'https://app.example.com', authorization: `Bearer ${token}` },
    });
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });

  it('a wildcard allows any origin without credentials', async () => {
    const open = await startTestApp({ CORS_ORIGINS: '*' });
    try {
      const preflight = await fetch(`${open.url}/graphql`, {
        method: 'OPTIONS',
        headers: { origin: 'https://any.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
      assert.equal(preflight.headers.get('access-control-allow-credentials'), null);
    } finally {
      await open.close();
    }
  });

  it('points the root to the APIs and their documents', async () => {
    const res = await app.request('GET', '/');
    assert.equal(res.status, 200);
    assert.equal(res.body.graphql, '/graphql');
    assert.equal(res.body.docs, '/api/docs');
  });
});
