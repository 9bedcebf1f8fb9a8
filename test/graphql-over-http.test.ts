import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serverAudits } from 'graphql-http';
import { startTestApp, type TestApp } from './helpers/app.js';

// The GraphQL over HTTP specification, checked by the graphql-http package's
// own audits against /graphql: every MUST passes (SHOULD and MAY are reported).

let app: TestApp;
before(async () => {
  app = await startTestApp();
});
after(async () => {
  await app?.close();
});

describe('GraphQL over HTTP audits', () => {
  for (const audit of serverAudits({ url: () => `${app.url}/graphql` })) {
    const must = audit.name.startsWith('MUST');
    it(audit.name, async () => {
      const result = await audit.fn();
      if (result.status === 'ok') return;
      if (must) assert.fail(`${result.reason}${'response' in result ? ` (answered ${result.response.status})` : ''}`);
      process.stdout.write(`# ${result.status}: ${audit.name}: ${result.reason}\n`);
    });
  }
});

describe('one rule for the status of a GraphQL answer', () => {
  it('a request refused before it ran answers the status its error names; one that ran answers 200 with data and its field errors', async () => {
    const owner = await app.login('owner@acme.test');
    const post = (query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
      app.request('POST', '/graphql', {
        token: owner,
        body: { query, variables },
        headers: { accept: 'application/graphql-response+json', ...headers },
      });
    const refusals: Array<[string, Awaited<ReturnType<typeof post>>]> = [];
    refusals.push(['a document that does not parse', await post('{ me {')]);
    refusals.push(['a field that does not exist', await post('{ noSuchField }')]);
    refusals.push([
      'a variable outside its enum',
      await post('query($u: NumberUse) { phoneNumbers(useFor: $u) { pagination { total } } }', { u: 'fax' }),
    ]);
    const key = `status-rule-${Date.now()}`;
    const create = 'mutation($name: String!) { createCampaign(name: $name) { id } }';
    assert.equal((await post(create, { name: 'Status rule' }, { 'idempotency-key': key })).status, 200);
    refusals.push([
      'an Idempotency-Key used with another request',
      await post(create, { name: 'Another' }, { 'idempotency-key': key }),
    ]);
    refusals.push([
      'an Idempotency-Key over two fields',
      await post(
        'mutation { a: createCampaign(name: "A") { id } b: createCampaign(name: "B") { id } }',
        {},
        { 'idempotency-key': `${key}-two` },
      ),
    ]);
    for (const [what, res] of refusals) {
      assert.equal(res.body.data, undefined, what);
      const named = res.body.errors[0].extensions.http.status;
      assert.ok(named >= 400 && named < 500, `${what}: ${res.text}`);
      assert.equal(res.status, named, `${what}: the HTTP status is the one its error names (${res.text})`);
    }
    assert.equal(refusals[3][1].status, 422);
    // It ran: a field's error is in errors, beside data, and the status is 200.
    const ran = await post(create, { name: '' });
    assert.equal(ran.status, 200, ran.text);
    assert.equal(ran.body.data, null);
    assert.equal(ran.body.errors[0].extensions.code, 'BAD_USER_INPUT');
    assert.equal(ran.body.errors[0].extensions.http.status, 422);
  });
});
