import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  buildSchema as buildSdl,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  parse,
  type GraphQLEnumType,
  type GraphQLInputType,
  type OperationDefinitionNode,
} from 'graphql';
import { createSchema } from '../src/graphql/schema.js';
import { checkOperation, GRAPHQL_LIMITS } from '../src/graphql/limits.js';
import { ALL_ID_FORMS, toBase64Id } from '../src/kernel/ids.js';
import { compileRoutes, type CompiledRoute } from '../src/rest/compile.js';
import type { Param } from '../src/rest/route.js';
import { routeTable } from '../src/rest/routes/index.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// Every input is bounded: each hostile value is sent to every parameter of
// every route of the table, and to GraphQL; each answer is a 4xx with the
// error body, and the database is unchanged afterwards.

let app: TestApp;
let owner: string;
let routes: CompiledRoute[];

before(async () => {
  app = await startTestApp({ LOGIN_LIMIT_PER_IP: '100000/1m', LOGIN_LIMIT_PER_EMAIL: '100000/1m' });
  owner = await app.login('owner@acme.test');
  routes = compileRoutes(await createSchema(), routeTable);
});
after(() => app.close());

const deep = (levels: number) => {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i++) value = { next: value };
  return value;
};

/** JSON text of a value nested `levels` deep (JSON.stringify itself would overflow the stack). */
const deepJson = (levels: number) => `${'{"next":'.repeat(levels)}"bottom"${'}'.repeat(levels)}`;

/** A JSON value sent as text: either plain (stringified here) or prepared text. */
type Hostile = { name: string; json?: unknown; jsonText?: string; text?: string };
const asText = (value: Hostile) => value.jsonText ?? JSON.stringify(value.json);

/** Hostile values for a parameter of this type, as JSON (body) and as text (path, query). */
function hostile(param: Param): Hostile[] {
  switch (param.type) {
    case 'string':
    case 'id':
      return [{ name: 'NUL', json: 'a\u0000b', text: 'a\u0000b' }];
    case 'integer':
      return [
        { name: '2^31', json: 2 ** 31, text: String(2 ** 31) },
        { name: '-2^31-1', json: -(2 ** 31) - 1, text: String(-(2 ** 31) - 1) },
        { name: '2^53', json: 2 ** 53, text: '9007199254740993' },
      ];
    case 'number':
      return [
        { name: 'NaN text', json: 'NaN', text: 'NaN' },
        { name: '1e309', jsonText: '1e309', text: '1e309' },
      ];
    case 'array':
      return [
        {
          name: '1001 items',
          json: Array.from({ length: 1001 }, (_, i) => (param.items?.type === 'integer' ? i + 1 : String(i + 1))),
        },
        { name: 'NUL item', json: param.items?.type === 'integer' ? [2 ** 31] : ['a\u0000b'] },
      ];
    case 'object':
    case 'json':
      return [
        { name: '10,000 deep', jsonText: `{"nodes":[],"extra":${deepJson(10_000)}}` },
        { name: 'NUL inside', json: { nodes: [{ id: 'a\u0000', kind: 'trigger', type: 'call.ended' }] } },
      ];
    default:
      return [];
  }
}

/** A path whose parameters are valid ids in a form the row accepts. */
const validPath = (route: CompiledRoute) =>
  route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const forms = route.route.params.path?.[name]?.idForms ?? ALL_ID_FORMS;
    return forms.includes('numeric') ? '1' : toBase64Id(1);
  });

describe('hostile input to every route of the table', () => {
  it('answers 4xx with the error body and changes nothing', async () => {
    const fingerprint = await app.fingerprint();
    let sent = 0;
    for (const route of routes) {
      const { query = {}, body = {}, path = {} } = route.route.params;
      const attempts: Array<{ label: string; url: string; raw?: string }> = [];
      for (const [name, param] of Object.entries(query)) {
        for (const value of hostile(param).filter((v) => v.text !== undefined)) {
          attempts.push({
            label: `query ${name} ${value.name}`,
            url: `${validPath(route)}?${new URLSearchParams({ [name]: value.text! })}`,
          });
        }
      }
      for (const [name, param] of Object.entries(body)) {
        for (const value of hostile(param))
          attempts.push({
            label: `body ${name} ${value.name}`,
            url: validPath(route),
            raw: `{${JSON.stringify(name)}:${asText(value)}}`,
          });
      }
      for (const name of Object.keys(path)) {
        attempts.push({
          label: `path ${name} NUL`,
          url: route.path.replace(`{${name}}`, encodeURIComponent('1\u0000')).replace(/\{\w+\}/g, '1'),
        });
        attempts.push({
          label: `path ${name} 2^31`,
          url: route.path.replace(`{${name}}`, String(2 ** 31)).replace(/\{\w+\}/g, '1'),
        });
      }
      for (const attempt of attempts) {
        const raw = attempt.raw ?? (route.method === 'GET' ? undefined : '{}');
        const res = await app.request(route.method, attempt.url, {
          token: owner,
          raw,
          headers: raw ? { 'content-type': 'application/json' } : {},
        });
        const where = `${route.method} ${route.path} ${attempt.label}: ${res.status} ${res.text.slice(0, 200)}`;
        assert.ok(res.status >= 400 && res.status < 500, where);
        assert.equal(res.body.success, false, where);
        assert.equal(typeof res.body.message, 'string', where);
        sent++;
      }
    }
    assert.ok(sent > 60, `only ${sent} hostile requests were built`);
    assert.equal(await app.fingerprint(), fingerprint);
  });

  it('refuses a NUL byte on sign-in, unauthenticated', async () => {
    for (const body of [
      { email: 'owner@acme.test\u0000', password: 'x' },
      { email: 'owner@acme.test', password: 'sw\u0000' },
    ]) {
      const res = await app.request('POST', '/api/login', { body });
      assert.equal(res.status, 422, res.text);
    }
  });

  it('refuses a search longer than 200 characters quickly, not after scanning', async () => {
    const res = await app.request('GET', `/api/roles?search=${'x'.repeat(201)}`, { token: owner });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.errors, { search: ['The search field must not be greater than 200 characters.'] });
    const gql = await app.graphql(
      'query($s: String) { roles(search: $s) { pagination { total } } }',
      { s: 'y'.repeat(1_000_000) },
      owner,
    );
    assert.equal(gql.body.errors[0].extensions.code, 'BAD_USER_INPUT');
  });

  it('keeps only the catalog keys of trigger_config, refuses a 10,500-node chain as too large, finds a cycle through 200 nodes', async () => {
    const created = await app.request('POST', '/api/Workflow/create', { token: owner, body: {} });
    const builder = created.body.data.builder_id;
    const graph = {
      nodes: [{ id: 't', kind: 'trigger', type: 'call.ended', config: {}, injected: deep(5) }],
      edges: [],
      extra: { anything: true },
    };
    const saved = await app.request('PUT', `/api/Workflow/builder/${builder}`, {
      token: owner,
      body: { trigger_config: graph },
    });
    assert.equal(saved.status, 200, saved.text);
    const [row] = await app.sql('SELECT trigger_config FROM workflows WHERE builder_id = $1', [
      Number(Buffer.from(builder, 'base64').toString()),
    ]);
    assert.deepEqual(row.trigger_config, {
      nodes: [{ id: 't', kind: 'trigger', type: 'call.ended', config: {} }],
      edges: [],
    });

    const chain = {
      nodes: Array.from({ length: 10_500 }, (_, i) => ({
        id: `n${i}`,
        kind: i === 0 ? 'trigger' : 'action',
        type: i === 0 ? 'call.ended' : 'wait',
        config: {},
      })),
      edges: Array.from({ length: 10_499 }, (_, i) => ({ from: `n${i}`, to: `n${i + 1}` })),
    };
    const big = await app.request('PUT', `/api/Workflow/builder/${builder}`, {
      token: owner,
      body: { trigger_config: chain },
    });
    assert.equal(big.status, 422, big.text.slice(0, 300));
    assert.match(
      Object.values(big.body.errors as Record<string, string[]>)[0][0],
      /at most 200 nodes|more than 1000 items/,
    );
    const justOver = { nodes: chain.nodes.slice(0, 201), edges: [] };
    const over = await app.request('PUT', `/api/Workflow/builder/${builder}`, {
      token: owner,
      body: { trigger_config: justOver },
    });
    assert.deepEqual(over.body.errors, { 'trigger_config.nodes': ['A workflow holds at most 200 nodes.'] });

    const ring = {
      nodes: Array.from({ length: 200 }, (_, i) => ({
        id: `n${i}`,
        kind: i === 0 ? 'trigger' : 'action',
        type: i === 0 ? 'call.ended' : 'add_tag',
        config: i === 0 ? {} : { tag: 'x' },
      })),
      edges: [
        ...Array.from({ length: 199 }, (_, i) => ({ from: `n${i}`, to: `n${i + 1}` })),
        { from: 'n199', to: 'n1' },
      ],
    };
    const cyclic = await app.request('PUT', `/api/Workflow/builder/${builder}`, {
      token: owner,
      body: { trigger_config: ring },
    });
    assert.equal(cyclic.status, 422, cyclic.text.slice(0, 300));
    assert.match(cyclic.body.errors['trigger_config.edges'][0], /^Node "n\d+" is part of a cycle/);
  });

  it('refuses folder reorders over 1,000 ids (422) and bodies over 1 MiB (413)', async () => {
    const res = await app.request('POST', '/api/Workflow/folder/reorder', {
      token: owner,
      body: { folder_ids: Array.from({ length: 1001 }, (_, i) => toBase64Id(i + 1)) },
    });
    assert.equal(res.status, 422);
    assert.match(res.body.errors.folder_ids[0], /not have more than 1000 items/);
    const huge = await app.request('POST', '/api/Workflow/folder/reorder', {
      token: owner,
      body: { folder_ids: Array.from({ length: 100_000 }, (_, i) => toBase64Id(i + 1)) },
    });
    assert.equal(huge.status, 413);
  });

  it('finds duplicates among 1,000 folder ids', async () => {
    const ids = [...Array.from({ length: 999 }, (_, i) => toBase64Id(i + 1)), toBase64Id(1)];
    const res = await app.request('POST', '/api/Workflow/folder/reorder', { token: owner, body: { folder_ids: ids } });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.errors['folder_ids.999'], ['The folder_ids.999 field has a duplicate value.']);
  });
});

describe('field names in errors', () => {
  // The services key errors by GraphQL names; REST renames each to its row's field.
  const cases = [
    {
      gql: 'mutation { updateSpamFlagSettings(minCarriersToFlag: 7) { minCarriersToFlag } }',
      graphqlKey: 'minCarriersToFlag',
      rest: ['PUT', '/api/spam-protected-numbers/flag-settings', { min_carriers_to_flag: 7 }],
      restKey: 'min_carriers_to_flag',
    },
  ] as const;
  for (const c of cases) {
    it(`${c.graphqlKey} over GraphQL, ${c.restKey} over REST`, async () => {
      const gql = await app.graphql(c.gql, {}, owner);
      assert.deepEqual(
        Object.keys(gql.body.errors[0].extensions.errors ?? {}),
        [c.graphqlKey],
        JSON.stringify(gql.body),
      );
      const [method, path, body] = c.rest as readonly [string, string, Record<string, unknown>?];
      const rest = await app.request(method, path, { token: owner, body });
      assert.equal(rest.status, 422, rest.text);
      assert.deepEqual(Object.keys(rest.body.errors), [c.restKey]);
    });
  }
});

describe('closed sets', () => {
  it('a value outside an enum: GraphQL refuses the document naming the value and the enum, REST answers 422 naming its field', async () => {
    const gql = await app.graphql('query { phoneNumbers(useFor: fax) { pagination { total } } }', {}, owner);
    assert.equal(gql.status, 400);
    assert.match(gql.body.errors[0].message, /Value "fax" does not exist in "NumberUse" enum/);
    const variable = await app.graphql(
      'query($use: NumberUse) { phoneNumbers(useFor: $use) { pagination { total } } }',
      { use: 'fax' },
      owner,
    );
    assert.equal(variable.status, 400);
    assert.match(variable.body.errors[0].message, /Variable "\$use" got invalid value "fax"/);
    assert.match(variable.body.errors[0].message, /NumberUse accepts "[a-z_]+"(, "[a-z_]+")* or "[a-z_]+"\.$/);
    const rest = await app.request('GET', '/api/phone-numbers?use_for=fax', { token: owner });
    assert.equal(rest.status, 422);
    assert.deepEqual(rest.body.errors, {
      use_for: ['The use for field does not accept "fax"; it accepts "ai", "dialer" or "both".'],
    });
  });

  it('every enum-valued parameter of every row names the bad value and each accepted one, REST and GraphQL alike', async () => {
    const fingerprint = await app.fingerprint();
    let checked = 0;
    for (const route of routes) {
      const { query = {}, body = {} } = route.route.params;
      const sent: Array<[string, Param, 'query' | 'body']> = [
        ...Object.entries(query).map(([name, param]) => [name, param, 'query'] as [string, Param, 'query']),
        ...Object.entries(body).map(([name, param]) => [name, param, 'body'] as [string, Param, 'body']),
      ];
      for (const [name, param, where] of sent) {
        const accepted = param.enum ?? param.items?.enum;
        if (!accepted || typeof accepted[0] !== 'string') continue;
        const bad = 'no-such-value';
        const value = param.enum ? bad : [bad];
        const url =
          where === 'query' ? `${validPath(route)}?${new URLSearchParams({ [name]: bad })}` : validPath(route);
        const res = await app.request(route.method, url, {
          token: owner,
          body: where === 'body' ? { [name]: value } : undefined,
        });
        const field = param.enum ? name : `${name}.0`;
        const where_ = `${route.method} ${route.path} ${name}: ${res.status} ${res.text.slice(0, 300)}`;
        if (res.status === 404) continue; // a row whose path names no record of this company answers that first
        assert.equal(res.status, 422, where_);
        const [text] = res.body.errors[field] ?? [];
        assert.ok(text, where_);
        assert.ok(text.includes('"no-such-value"'), where_);
        for (const one of accepted) assert.ok(text.includes(JSON.stringify(one)), `${where_}: ${one} not named`);
        checked++;
      }
    }
    assert.ok(checked >= 10, `only ${checked} enum parameters were checked`);
    // GraphQL: every argument of a query or mutation that takes an enum (itself, in a list or in an input
    // object's field), given a value outside it, is refused naming the value and the values the enum accepts.
    const schema = await createSchema();
    let inputs = 0;
    for (const root of [schema.getQueryType()!, schema.getMutationType()!]) {
      for (const field of Object.values(root.getFields())) {
        for (const arg of field.args) {
          const named = getNamedType(arg.type);
          const bad = (type: GraphQLInputType): unknown =>
            isListType(getNullableType(type)) ? ['NO_SUCH_VALUE'] : 'NO_SUCH_VALUE';
          const cases: Array<{ value: unknown; enumType: GraphQLEnumType }> = [];
          if (isEnumType(named)) cases.push({ value: bad(arg.type), enumType: named });
          if (isInputObjectType(named)) {
            for (const inner of Object.values(named.getFields())) {
              const innerNamed = getNamedType(inner.type);
              if (isEnumType(innerNamed))
                cases.push({ value: { [inner.name]: bad(inner.type) }, enumType: innerNamed });
            }
          }
          for (const { value, enumType } of cases) {
            const others = field.args.filter((other) => other !== arg && isNonNullType(other.type));
            const variables = [`$v: ${arg.type}`, ...others.map((other) => `$${other.name}: ${other.type}`)].join(', ');
            const args = [`${arg.name}: $v`, ...others.map((other) => `${other.name}: $${other.name}`)].join(', ');
            const selection = isLeafType(getNamedType(field.type)) ? '' : '{ __typename }';
            const document = `${root === schema.getQueryType() ? 'query' : 'mutation'}(${variables}) { ${field.name}(${args}) ${selection} }`;
            const res = await app.graphql(
              document,
              { v: isInputObjectType(named) && isListType(getNullableType(arg.type)) ? [value] : value },
              owner,
            );
            const where = `${field.name}(${arg.name}): ${res.text.slice(0, 400)}`;
            assert.equal(res.status, 400, where);
            const text = (res.body.errors as Array<{ message: string }>)
              .map((e) => e.message)
              .find((m) => m.includes(`in "${enumType.name}" enum`));
            assert.ok(text, where);
            assert.match(
              text,
              new RegExp(
                `Value "NO_SUCH_VALUE" does not exist in "${enumType.name}" enum\\. ${enumType.name} accepts `,
              ),
              where,
            );
            for (const one of enumType.getValues())
              assert.ok(text.includes(`"${one.name}"`), `${where}: ${one.name} not named`);
            inputs++;
          }
        }
      }
    }
    assert.ok(inputs >= 20, `only ${inputs} enum inputs were checked`);
    assert.equal(await app.fingerprint(), fingerprint);
  });

  it('REST takes and gives the values the spec writes; GraphQL the enum names', async () => {
    const rest = await app.request('GET', '/api/ai/dashboard/appointments?date_range=Last%2030%20Days', {
      token: owner,
    });
    assert.equal(rest.status, 200, rest.text);
    const gql = await app.graphql(
      '{ appointmentCalls(filter: { dateRange: Last_30_Days }) { pagination { total } } }',
      {},
      owner,
    );
    assert.equal(gql.body.data.appointmentCalls.pagination.total, rest.body.data.pagination.total);

    const [{ id }] = await app.sql(
      'INSERT INTO calls (company_id, from_number, to_number, started_at, duration_seconds, status, ' +
        "direction, tags, custom_fields, created_at, updated_at) SELECT id, '+12125550199', '+14155550000', " +
        "now(), 0, 'in-progress', 'inbound', '[]', '{}', now(), now() FROM companies WHERE name = 'Acme " +
        "Agency' RETURNING id",
    );
    try {
      const one = await app.request('GET', `/api/ai/dashboard/calls/${id}`, { token: owner });
      assert.equal(one.status, 200, one.text);
      assert.equal(one.body.data.status, 'in-progress');
      const viaGraphql = await app.graphql(
        'query($id: ID!) { callDetails(id: $id) { status direction } }',
        { id: String(id) },
        owner,
      );
      assert.deepEqual(viaGraphql.body.data.callDetails, { status: 'in_progress', direction: 'inbound' });
    } finally {
      await app.sql('DELETE FROM calls WHERE id = $1', [id]);
    }
  });
});

describe('GraphQL limits, before execution', () => {
  const gql = (query: string, variables: Record<string, unknown> = {}) => app.graphql(query, variables, owner);

  it('refuses more than 50 aliases of one field with QUERY_TOO_COMPLEX', async () => {
    const fields = Array.from(
      { length: 51 },
      (_, i) => `a${i}: appointmentCalls(perPage: 1) { pagination { total } }`,
    ).join('\n');
    const res = await gql(`{ ${fields} }`);
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].extensions.code, 'QUERY_TOO_COMPLEX');
    assert.equal(res.body.data, undefined, 'nothing executed');
  });

  it('refuses an operation whose lists cost more than the limit (a list costs its page size)', async () => {
    const fields = Array.from(
      { length: 50 },
      (_, i) =>
        `a${i}: appointmentCalls(perPage: 100) { records { id callDatetime agentName duration status direction sentiment } }`,
    ).join('\n');
    const res = await gql(`{ ${fields} }`);
    assert.equal(res.body.errors[0].extensions.code, 'QUERY_TOO_COMPLEX');
    // Each page: 1 (the page object) + 100 records x 1 (scalars cost nothing) = 101; the fiftieth passes 5,000 (49 x 101 = 4,949).
    assert.match(
      res.body.errors[0].message,
      /^The query costs 5,050 or more, over the limit of 5,000\. Each object costs 1 and scalar and enum fields nothing/,
    );
    const fortyNine = await gql(`{ ${fields.split('\n').slice(0, 49).join('\n')} }`);
    assert.equal(fortyNine.status, 200, fortyNine.text.slice(0, 300));
    const small = await gql('{ appointmentCalls(perPage: 100) { records { id callDatetime agentName duration } } }');
    assert.equal(small.status, 200, small.text);
  });

  it('takes a page size from a variable when costing', async () => {
    const fields = Array.from(
      { length: 50 },
      (_, i) => `a${i}: roles(perPage: $n) { records { id title createdAt updatedAt encryptedId } }`,
    ).join('\n');
    const query = `query($n: Int) { ${fields} }`;
    assert.equal((await gql(query, { n: 100 })).body.errors[0].extensions.code, 'QUERY_TOO_COMPLEX');
    assert.equal((await gql(query, { n: 5 })).status, 200);
  });

  it('refuses batches over 10 operations and empty batches', async () => {
    const op = { query: '{ me { user { id } } }' };
    const over = await app.request('POST', '/graphql', {
      token: owner,
      body: Array(GRAPHQL_LIMITS.batch + 1).fill(op),
    });
    assert.equal(over.status, 400);
    assert.equal(over.body.errors[0].extensions.code, 'QUERY_TOO_COMPLEX');
    const empty = await app.request('POST', '/graphql', { token: owner, body: [] });
    assert.equal(empty.status, 400);
    const ok = await app.request('POST', '/graphql', { token: owner, body: Array(GRAPHQL_LIMITS.batch).fill(op) });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.length, GRAPHQL_LIMITS.batch);
  });

  it('refuses NUL in a variable or a literal, out-of-range integers and deep JSON, and changes nothing', async () => {
    const fingerprint = await app.fingerprint();
    const cases: Array<[string, Record<string, unknown>]> = [
      ['mutation($t: String!) { createRole(input: { title: $t }) { id } }', { t: 'a\u0000b' }],
      ['mutation { createRole(input: { title: "a\\u0000b" }) { id } }', {}],
      ['mutation($n: String!, $p: String!) { login(email: $n, password: $p) { token } }', { n: 'a@b.c\u0000', p: 'x' }],
      ['query($p: Int) { roles(perPage: $p) { pagination { total } } }', { p: 2 ** 31 }],
      ['mutation($p: [Int!]) { createRole(input: { title: "Big ids", permissions: $p }) { id } }', { p: [2 ** 31] }],
      [
        'mutation($c: JSONObject) { createWorkflow(input: { triggerConfig: $c }) { id } }',
        { c: { nodes: [], x: deep(50) } },
      ],
      ['mutation($ids: [ID!]!) { reorderWorkflowFolders(folderIds: $ids) { id } }', { ids: Array(1001).fill('MQ==') }],
    ];
    for (const [query, variables] of cases) {
      const res = await gql(query, variables);
      assert.ok(res.status >= 400 && res.status < 500, `${query}: ${res.status} ${res.text.slice(0, 200)}`);
      assert.ok(
        ['BAD_USER_INPUT', 'QUERY_TOO_COMPLEX'].includes(res.body.errors[0].extensions.code),
        `${query}: ${res.text.slice(0, 200)}`,
      );
    }
    const deepRaw =
      '{"query":"mutation($c: JSONObject) { createWorkflow(input: { triggerConfig: $c }) { id } }",' +
      `"variables":{"c":{"nodes":[],"x":${deepJson(10_000)}}}}`;
    const res = await app.request('POST', '/graphql', {
      token: owner,
      raw: deepRaw,
      headers: { 'content-type': 'application/json' },
    });
    assert.ok(res.status >= 400 && res.status < 500, `${res.status} ${res.text.slice(0, 200)}`);
    assert.equal(await app.fingerprint(), fingerprint);
  });
});

describe('the GraphQL cost and depth checks (pure)', () => {
  const schema = buildSdl(
    'type Query { node: Node } type Node { child: Node, name: String, list(perPage: Int): [Node] }',
  );
  const check = (query: string, variables: Record<string, unknown> = {}) => {
    const document = parse(query);
    checkOperation(document, document.definitions[0] as OperationDefinitionNode, schema.getQueryType()!, variables);
  };

  it('allows 12 levels and refuses 13', () => {
    const nest = (n: number) => `{ ${'node { '.repeat(1)}${'child { '.repeat(n - 2)}name${' }'.repeat(n - 1)} }`;
    assert.doesNotThrow(() => check(nest(12)));
    assert.throws(() => check(nest(13)), /nested more than 12/);
  });

  it('counts fragments where they are spread, and survives a fragment cycle', () => {
    const spreads = Array.from({ length: 60 }, () => '...F').join(' ');
    assert.throws(
      () => check(`{ node { list(perPage: 100) { ${spreads} } } } fragment F on Node { list(perPage: 100) { name } }`),
      /costs [\d,]+ or more, over the limit of 5,000/,
    );
    assert.doesNotThrow(() =>
      check('{ node { ...A } } fragment A on Node { child { ...B } } fragment B on Node { name ...A }'),
    );
  });
});
