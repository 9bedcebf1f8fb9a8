import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.js';

// /graphql runs a document graphql-js `execute` the first time and compiled
// (graphql-jit) from its second use on. A client must not be able to tell:
// each case sends the same document three times and expects the same answer
// and the same effect each time.

let app: TestApp;
let owner: string;
let hookId: string;
const ORIGINAL_URL = 'https://hooks.example.test/compiled';

const send = (body: { query: string; variables?: Record<string, unknown>; operationName?: string }, token = owner) =>
  app.request('POST', '/graphql', { token, body });

/** The same request three times: status and body of each. */
async function thrice(body: Parameters<typeof send>[0], token?: string) {
  const answers = [];
  for (let i = 0; i < 3; i++) {
    const res = await send(body, token);
    answers.push({ status: res.status, body: res.body });
  }
  return answers;
}

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  const created = await send({
    query: 'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } } }',
    variables: { input: { title: 'Compiled', url: ORIGINAL_URL, events: ['agent_created'] } },
  });
  assert.equal(created.status, 200, created.text);
  hookId = created.body.data.createWebhook.webhook.id;
});
after(() => app.close());

describe('a document run again runs compiled, with the same answers', () => {
  it('a field whose variable is not given stays absent from a literal input: a partial update changes only what it names', async () => {
    const query =
      'mutation Rename($id: ID!, $title: String, $url: String) { updateWebhook(id: $id, input: { title: $title, url: $url }) { title url } }';
    for (const title of ['First', 'Second', 'Third']) {
      const res = await send({ query, variables: { id: hookId, title } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { data: { updateWebhook: { title, url: ORIGINAL_URL } } });
    }
    const [row] = await app.sql<{ title: string; url: string }>('SELECT title, url FROM webhooks WHERE title = $1', [
      'Third',
    ]);
    assert.deepEqual({ ...row }, { title: 'Third', url: ORIGINAL_URL });
  });

  it("a variable not given inside a literal takes its definition's default", async () => {
    const query =
      'mutation Defaulted($id: ID!, $title: String = "From the default") { updateWebhook(id: $id, input: { title: $title }) { title url } }';
    for (let i = 0; i < 3; i++) {
      await app.sql('UPDATE webhooks SET title = $1 WHERE url = $2', [`Reset ${i}`, ORIGINAL_URL]);
      const res = await send({ query, variables: { id: hookId } });
      assert.deepEqual(res.body, { data: { updateWebhook: { title: 'From the default', url: ORIGINAL_URL } } });
    }
  });

  it('an explicit null is passed as null, not left out', async () => {
    const query =
      'mutation Nulled($id: ID!, $title: String) { updateWebhook(id: $id, input: { title: $title }) { title } }';
    const answers = await thrice({ query, variables: { id: hookId, title: null } });
    assert.equal(answers[0].status, 200);
    assert.deepEqual(answers[1], answers[0]);
    assert.deepEqual(answers[2], answers[0]);
  });

  it("a bad variable gets graphql-js's message and a 400 every time", async () => {
    // graphql-jit words these differently ("Expected type Int; ...", type names unquoted); clients see graphql-js's words.
    const cases: Array<[Parameters<typeof send>[0], RegExp]> = [
      [
        {
          query: 'query Sized($perPage: Int) { roles(perPage: $perPage) { pagination { perPage } } }',
          variables: { perPage: '15' },
        },
        /^Variable "\$perPage" got invalid value "15"; Int cannot represent non-integer value: "15"$/,
      ],
      [
        {
          query: 'mutation Bogus($id: ID!, $input: WebhookInput!) { updateWebhook(id: $id, input: $input) { title } }',
          variables: { id: hookId, input: { bogus: 1 } },
        },
        /^Variable "\$input" got invalid value \{ bogus: 1 \}; Field "bogus" is not defined by type "WebhookInput"\.$/,
      ],
      [
        { query: 'query Bad($id: ID!) { webhook(id: $id) { title } }', variables: { id: { not: 'an id' } } },
        /^Variable "\$id" got invalid value \{ not: "an id" \}; ID cannot represent value: \{ not: "an id" \}$/,
      ],
    ];
    for (const [body, message] of cases) {
      const answers = await thrice(body);
      assert.equal(answers[0].status, 400);
      assert.match(answers[0].body.errors[0].message, message);
      assert.equal(answers[0].body.errors[0].extensions.code, 'BAD_USER_INPUT');
      assert.deepEqual(answers[1], answers[0]);
      assert.deepEqual(answers[2], answers[0]);
    }
  });

  it("another company's webhook: the same NOT_FOUND error, path and null data every time", async () => {
    const other = await app.login('owner@gamma.test');
    const answers = await thrice(
      { query: 'query Other($id: ID!) { webhook(id: $id) { title } }', variables: { id: hookId } },
      other,
    );
    assert.equal(answers[0].status, 200);
    assert.equal(answers[0].body.data, null);
    assert.deepEqual(
      answers[0].body.errors.map((e: { path: string[]; extensions: { code: string } }) => [e.path, e.extensions.code]),
      [[['webhook'], 'NOT_FOUND']],
    );
    assert.deepEqual(answers[1], answers[0]);
    assert.deepEqual(answers[2], answers[0]);
  });

  it('a document of several operations runs the one named, each compiled on its own', async () => {
    const query = `
      query Titles($id: ID!) { webhook(id: $id) { title } }
      mutation Retitle($id: ID!, $title: String) { updateWebhook(id: $id, input: { title: $title }) { title url } }`;
    for (const title of ['One', 'Two', 'Three']) {
      const changed = await send({ query, operationName: 'Retitle', variables: { id: hookId, title } });
      assert.deepEqual(changed.body, { data: { updateWebhook: { title, url: ORIGINAL_URL } } });
      const read = await send({ query, operationName: 'Titles', variables: { id: hookId } });
      assert.deepEqual(read.body, { data: { webhook: { title } } });
    }
  });

  it('fragments, aliases, variables in lists and __typename', async () => {
    const query = `
      query Shaped($page: Int = 1) { first: roles(page: $page, perPage: 2) { ...Page } again: roles(perPage: 2) { __typename records { id } } }
      fragment Page on RolePage { pagination { currentPage perPage } records { __typename id title } }`;
    const answers = await thrice({ query });
    assert.equal(answers[0].status, 200);
    assert.equal(answers[0].body.data.first.pagination.perPage, 2);
    assert.equal(answers[0].body.data.first.records[0].__typename, 'Role');
    assert.equal(answers[0].body.data.again.__typename, 'RolePage');
    assert.deepEqual(answers[1], answers[0]);
    assert.deepEqual(answers[2], answers[0]);
  });
});
