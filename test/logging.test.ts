import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger, errorFields } from '../src/observability/logger.js';
import { telcoSignature } from '../src/telco/signature.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually } from './helpers/receiver.js';

// What an operator reads: one line per request with its route, its GraphQL
// operation and root fields, status and duration; client errors never at
// error level; no secret or SQL value on any line.

let app: TestApp;
const logs: string[] = [];
const lines = () => logs.map((line) => JSON.parse(line) as Record<string, any>);

before(async () => {
  app = await startTestApp({ LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE: 'true' }, { logs });
});
after(() => app?.close());

describe('logs', () => {
  it('one JSON line per request: route template, GraphQL operation and root fields, status, duration, request id', async () => {
    const token = await app.login('owner@acme.test');
    logs.length = 0;
    await app.request('GET', '/api/webhooks/999999', { token, headers: { 'x-request-id': 'log-rest-1' } });
    await app.request('POST', '/graphql', {
      token,
      headers: { 'x-request-id': 'log-gql-1' },
      body: { query: 'query Everything { me { user { id } } roles { records { id } } }', operationName: 'Everything' },
    });
    await app.request('POST', '/graphql', {
      token,
      headers: { 'x-request-id': 'log-batch-1' },
      body: [
        { query: 'query A { me { user { id } } }' },
        { query: 'mutation B { createAgent(name: "Logged") { id } }' },
      ],
    });

    const rest = lines().filter((l) => l.requestId === 'log-rest-1');
    assert.equal(rest.length, 1, 'one line for the request');
    assert.equal(rest[0].message, 'request');
    assert.equal(rest[0].level, 'info', "a 404 is the client's: info");
    assert.equal(rest[0].route, '/api/webhooks/{id}');
    assert.equal(rest[0].status, 404);
    assert.equal(typeof rest[0].durationMs, 'number');
    assert.match(rest[0].time, /^\d{4}-\d{2}-\d{2}T/);

    const [gql] = lines().filter((l) => l.requestId === 'log-gql-1');
    assert.equal(gql.route, '/graphql');
    assert.deepEqual(gql.graphql, [{ operation: 'Everything', type: 'query', fields: ['me', 'roles'] }]);
    const [batch] = lines().filter((l) => l.requestId === 'log-batch-1');
    assert.deepEqual(batch.graphql, [
      { operation: 'A', type: 'query', fields: ['me'] },
      { operation: 'B', type: 'mutation', fields: ['createAgent'] },
    ]);

    const metrics = (await app.request('GET', '/metrics')).text;
    assert.match(metrics, /graphql_root_fields_total\{type="query",field="roles"\} [1-9]/);
    assert.match(metrics, /graphql_root_fields_total\{type="mutation",field="createAgent"\} [1-9]/);
  });

  it('GraphQL client errors (401, 403, 404, 422) are logged at info, never as errors with a stack', async () => {
    const auditor = await app.userWith(['view-webhooks'], 'log auditor');
    logs.length = 0;
    await app.graphql('{ roles { records { id } } }'); // 401
    await app.graphql('{ roles { records { id } } }', {}, auditor); // 403
    await app.graphql('{ webhook(id: "999999") { id } }', {}, auditor); // 404
    await app.graphql(
      'mutation { createWebhook(input: { title: "", url: "x", events: [] }) { webhook { id } } }',
      {},
      await app.login('owner@acme.test'),
    ); // 422
    assert.ok(logs.length >= 4);
    assert.deepEqual(
      lines().filter((l) => l.level !== 'info'),
      [],
    );
    assert.ok(!logs.some((line) => line.includes('stack')));
  });

  it('redacts tokens, passwords, secrets and authorization wherever they sit', () => {
    const out: string[] = [];
    const log = createLogger('info', (line) => void out.push(line));
    log.info('sensitive', {
      token: 'tok-1',
      user: { password: 'pw-2' },
      headers: { authorization: 'Bearer tok-3' },
      webhook: { secret: 'whsec_4' },
      keep: 'visible',
    });
    assert.equal(out.length, 1);
    for (const value of ['tok-1', 'pw-2', 'tok-3', 'whsec_4'])
      assert.ok(!out[0].includes(value), `${value} leaked: ${out[0]}`);
    assert.match(out[0], /"keep":"visible"/);
    assert.match(out[0], /\[redacted\]/);
  });

  it('a database error is logged with its SQLSTATE and message, without the statement, its values or the row', async () => {
    const error = await app
      .sql("INSERT INTO permissions (id, slug, name) SELECT id, slug, 'secret-value-xyz' FROM permissions LIMIT 1")
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    assert.ok(error instanceof Error);
    assert.match(
      String((error as { detail?: unknown }).detail),
      /secret-value-xyz/,
      "PostgreSQL's detail repeats the row",
    );
    const fields = errorFields(error);
    assert.match(String(fields.sqlState), /^23[0-9A-Z]{3}$/);
    assert.match(String(fields.error), /violates/);
    assert.equal(fields.table, 'permissions');
    assert.doesNotMatch(JSON.stringify(fields), /secret-value-xyz|INSERT|Failing row/i);
  });

  it(
    'a statement that fails on each path that logs (REST, GraphQL, provider callback, webhook worker) is ' +
      'logged with SQLSTATE, table and message, never the SQL or its values',
    async () => {
      // A trigger that refuses one marked value on each table these paths write.
      await app.sql(`CREATE FUNCTION refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by the test' USING ERRCODE = 'P0001', TABLE = TG_TABLE_NAME; END $$`);
      await app.sql(
        "CREATE TRIGGER refuse_role BEFORE INSERT ON roles FOR EACH ROW WHEN (NEW.title LIKE 'Marked%') EXECUTE FUNCTION refuse_marked()",
      );
      await app.sql(
        "CREATE TRIGGER refuse_call BEFORE INSERT ON calls FOR EACH ROW WHEN (NEW.from_number = '+14155550777') EXECUTE FUNCTION refuse_marked()",
      );
      await app.sql(
        'CREATE TRIGGER refuse_attempt BEFORE INSERT ON webhook_attempts FOR EACH ROW EXECUTE FUNCTION refuse_marked()',
      );
      try {
        const token = await app.login('owner@acme.test');
        logs.length = 0;
        assert.equal(
          (await app.request('POST', '/api/roles', { token, body: { title: 'Marked secret-rest-value' } })).status,
          500,
        );
        const gql = await app.graphql(
          'mutation { createRole(input: { title: "Marked secret-gql-value" }) { id } }',
          {},
          token,
        );
        assert.equal(gql.body.errors[0].extensions.code, 'INTERNAL_SERVER_ERROR');

        const { companyId, sid, authToken } = await app.providerAccount();
        const [{ phone_no: ours }] = await app.sql(
          'SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1',
          [companyId],
        );
        const url = `${app.url}/api/telco/voice/status`;
        const params = {
          AccountSid: sid,
          CallSid: 'CA' + 'fe'.repeat(16),
          From: '+14155550777',
          To: ours,
          Direction: 'inbound',
          CallStatus: 'initiated',
        };
        const callback = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-telco-signature': telcoSignature(url, params, authToken),
          },
          body: new URLSearchParams(params).toString(),
        });
        assert.equal(callback.status, 500);

        const hook = await app.request('POST', '/api/webhooks', {
          token,
          body: { title: 'Logged worker', url: 'http://127.0.0.1:9/never', events: ['agent.created'] },
        });
        assert.equal(hook.status, 201, hook.text);
        assert.equal((await app.request('POST', `/api/webhooks/${hook.body.data.id}/test`, { token })).status, 202);
        await eventually(
          // The attempts' table is partitioned: the row's partition names itself (webhook_attempts_p20261202).
          async () => (lines().some((l) => String(l.table).startsWith('webhook_attempts')) ? true : undefined),
          10_000,
          `the worker to log its failed statement: ${logs.filter((l) => !l.includes('"info"')).join('\n')}`,
        );

        const failures = lines().filter((l) => l.sqlState === 'P0001');
        assert.deepEqual(
          [...new Set(failures.map((l) => l.message))].sort(),
          ['delivery pump could not claim', 'graphql error', 'request failed'],
          JSON.stringify(lines().filter((l) => l.level !== 'info')),
        );
        assert.ok(failures.filter((l) => l.message === 'request failed').length >= 2, 'REST and the callback');
        for (const line of failures) {
          assert.equal(line.error, 'refused by the test');
          assert.ok(
            ['roles', 'calls', 'webhook_attempts'].includes(String(line.table).replace(/_(default|p\d{8})$/, '')),
            JSON.stringify(line),
          );
          assert.equal(line.stack, undefined);
        }
        const text = logs.join('\n');
        for (const leak of [/insert into/i, /secret-rest-value/, /secret-gql-value/, /\+14155550777/, /select /i])
          assert.doesNotMatch(text, leak);
      } finally {
        await app.sql(
          'DROP TRIGGER refuse_role ON roles; DROP TRIGGER refuse_call ON calls; DROP TRIGGER refuse_attempt ' +
            'ON webhook_attempts; DROP FUNCTION refuse_marked()',
        );
      }
    },
  );

  it('LOG_FORMAT=pretty writes lines for a person; a bad LOG_FORMAT is a configuration error', async () => {
    const { loadConfig, ConfigError } = await import('../src/config/config.js');
    assert.equal(loadConfig({ NODE_ENV: 'test', LOG_FORMAT: 'pretty' }).logFormat, 'pretty');
    assert.equal(loadConfig({ NODE_ENV: 'test' }).logFormat, undefined);
    assert.throws(
      () => loadConfig({ NODE_ENV: 'test', LOG_FORMAT: 'xml' }),
      (e: unknown) => e instanceof ConfigError && /LOG_FORMAT/.test(e.message),
    );

    // A person's terminal gets one line per request: method, path, status and time first, the other fields after.
    const lines: string[] = [];
    const pretty = await startTestApp({ LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' }, { logs: lines });
    try {
      const ownerToken = await pretty.login('owner@acme.test');
      lines.length = 0;
      assert.equal(
        (await pretty.request('GET', '/api/roles', { token: ownerToken, headers: { 'x-request-id': 'pretty-rest' } }))
          .status,
        200,
      );
      assert.equal(
        (await pretty.request('GET', '/api/roles', { headers: { 'x-request-id': 'pretty-401' } })).status,
        401,
      );
      assert.equal(
        (
          await pretty.request('POST', '/graphql', {
            token: ownerToken,
            body: { query: 'query Mine { me { user { email } } }' },
            headers: { 'x-request-id': 'pretty-gql' },
          })
        ).status,
        200,
      );
      const text = lines.join('');
      assert.equal(text.split('\n').filter(Boolean).length, 3, text);
      assert.match(
        text,
        /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/api\/roles 200 [\d.]+ ms \{.*"requestId":"pretty-rest".*\}$/m,
      );
      assert.match(text, /^\[[\d:.]+\] INFO: GET \/api\/roles 401 [\d.]+ ms \{.*"requestId":"pretty-401"/m);
      assert.match(text, /^\[[\d:.]+\] INFO: POST \/graphql 200 [\d.]+ ms \{.*"operation":"Mine"/m);
      assert.doesNotMatch(text, /"(method|path|status|durationMs)":/, 'shown once, in front');
    } finally {
      await pretty.close();
    }
  });
});
