import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { buildSchema, isEnumType, Kind, parse, type OperationDefinitionNode, type TypeNode } from 'graphql';
import { createSchema } from '../src/graphql/schema.js';
import { compileRoutes } from '../src/rest/compile.js';
import { resolveRoute } from '../src/rest/derive.js';
import { camelCase } from '../src/rest/params.js';
import type { Param, Route } from '../src/rest/route.js';
import { routeTable } from '../src/rest/routes/index.js';
import { EVENT_NAMES } from '../src/events/catalog.js';
import { deliveryViolation } from './helpers/contract.js';

/** Validates the document's examples against their schemas (JSON Schema 2020-12, components resolved). */
const exampleAjv = new Ajv2020({ strict: false, allErrors: true });

// The OpenAPI document against its sources: each row's parameters agree with
// the GraphQL operation it runs, and the document lints clean with Redocly's
// recommended rules. (The contract test in helpers/contract.ts checks every
// REST response of the suite against the document.)

const named = (type: TypeNode): string => (type.kind === Kind.NAMED_TYPE ? type.name.value : named(type.type));
const isList = (type: TypeNode): boolean =>
  type.kind === Kind.NON_NULL_TYPE ? isList(type.type) : type.kind === Kind.LIST_TYPE;

/** The GraphQL types a REST parameter type may fill. */
const FITS: Record<Param['type'], string[]> = {
  string: ['String', 'ID'],
  integer: ['Int'],
  number: ['Float'],
  boolean: ['Boolean'],
  id: ['ID', 'Int', 'String'],
  array: [],
  object: [],
  json: ['JSONObject'],
};

describe('the route table against the GraphQL operations', () => {
  it('every parameter fills a variable of a fitting type, and every non-null variable is filled by a required parameter', async () => {
    const schema = await createSchema();
    const problems: string[] = [];
    for (const compiled of compileRoutes(schema, routeTable)) {
      const { route } = compiled;
      const operation = compiled.document.definitions[0] as OperationDefinitionNode;
      const variables = new Map((operation.variableDefinitions ?? []).map((v) => [v.variable.name.value, v]));
      const filled = new Set<string>();
      const where = `${route.operationId} (${compiled.method} ${compiled.path})`;
      for (const [group, params] of Object.entries(route.params) as Array<[string, Record<string, Param>]>) {
        for (const [name, param] of Object.entries(params)) {
          const variable = variables.get(param.variable ?? camelCase(name));
          if (!variable) {
            problems.push(`${where}: ${group} parameter ${name} fills no variable of the operation`);
            continue;
          }
          filled.add(variable.variable.name.value);
          const type = variable.type;
          if (param.type === 'array' || param.type === 'object') {
            if ((param.type === 'array') !== isList(type))
              problems.push(
                `${where}: ${name} is ${param.type}, $${variable.variable.name.value} is ${named(type)}${isList(type) ? ' (list)' : ''}`,
              );
          } else if (isEnumType(schema.getType(named(type)))) {
            // A GraphQL enum: the row offers exactly its values (and the value that stands for all of them, if it has one).
            const values = [
              ...(param.every ? [param.every] : []),
              ...(schema.getType(named(type)) as import('graphql').GraphQLEnumType).getValues().map((v) => v.value),
            ].sort();
            if (param.type !== 'string' || JSON.stringify([...(param.enum ?? [])].sort()) !== JSON.stringify(values))
              problems.push(`${where}: ${name} should list the values of ${named(type)}: ${values.join(', ')}`);
          } else if (isList(type) || !FITS[param.type].includes(named(type))) {
            problems.push(
              `${where}: ${name} is ${param.type}, $${variable.variable.name.value} is ${named(type)}${isList(type) ? ' (list)' : ''}`,
            );
          }
          const nonNull = type.kind === Kind.NON_NULL_TYPE && !variable.defaultValue;
          if (nonNull && group !== 'path' && !param.required && !param.aliases?.length)
            problems.push(`${where}: $${variable.variable.name.value} is non-null but ${name} is optional`);
        }
      }
      for (const [name, variable] of variables) {
        if (!filled.has(name) && variable.type.kind === Kind.NON_NULL_TYPE)
          problems.push(`${where}: $${name} is non-null and no parameter fills it`);
      }
    }
    assert.deepEqual(problems, []);
  });
});

describe("a row's parameters completed from its operation", () => {
  const schema = buildSchema(`
    scalar JSONObject
    enum Status { active paused }
    input Item { itemId: Int!, note: String, status: Status }
    type Query { x: Int }
    type Mutation {
      save(id: ID!, count: Int!, share: Float, on: Boolean, status: Status, tags: [String!], items: [Item!], meta: JSONObject, title: String): Int
    }`);
  const row = (params: Route['params']): Route => ({
    operationId: 'save',
    methods: ['POST'],
    paths: ['/api/save/{id}'],
    tag: 'Test',
    summary: 'Save',
    params,
    document:
      'mutation Save($id: ID!, $count: Int!, $share: Float, $on: Boolean = true, $status: Status, $tags: ' +
      '[String!], $items: [Item!], $meta: JSONObject, $title: String) { save(id: $id, count: $count, ' +
      'share: $share, on: $on, status: $status, tags: $tags, items: $items, meta: $meta, title: $title) }',
    response: { field: 'save', shape: 'envelope' },
  });
  const resolve = (route: Route) =>
    resolveRoute(schema, route, parse(route.document).definitions[0] as OperationDefinitionNode).params;

  it('reads types, enum values, required and the fields of inputs from the variables', () => {
    const params = resolve(
      row({
        path: { id: { idKind: 'thing', idForms: ['numeric'] } },
        body: {
          count: {},
          share: {},
          on: {},
          status: {},
          tags: {},
          items: { items: { fields: { item_id: {}, note: { description: 'Free text' }, status: {} } } },
          meta: {},
        },
      }),
    );
    assert.deepEqual(params.path, { id: { idKind: 'thing', idForms: ['numeric'], required: true, type: 'id' } });
    assert.deepEqual(params.body, {
      count: { required: true, type: 'integer' },
      share: { type: 'number' },
      on: { type: 'boolean' }, // non-null would not matter: it has a default
      status: { type: 'string', enum: ['active', 'paused'] },
      tags: { type: 'array', items: { type: 'string' } },
      items: {
        type: 'array',
        items: {
          type: 'object',
          fields: {
            item_id: { required: true, type: 'integer' },
            note: { description: 'Free text', type: 'string' },
            status: { type: 'string', enum: ['active', 'paused'] },
          },
        },
      },
      meta: { type: 'json' },
    });
  });

  it('keeps what the row states where REST differs: a stricter required, its own type', () => {
    const params = resolve(
      row({
        path: { id: { type: 'string' } },
        body: { count: {}, title: { required: true }, meta: { type: 'object' } },
      }),
    );
    assert.deepEqual(params.body?.title, { required: true, type: 'string' });
    assert.deepEqual(params.body?.meta, { type: 'object' });
    assert.deepEqual(params.path?.id, { type: 'string', required: true });
  });

  it('stops the start when a parameter fills no variable or no input field', () => {
    assert.throws(
      () => resolve(row({ path: { id: {} }, body: { count: {}, colour: {} } })),
      /Route save: body parameter colour fills no variable of the operation/,
    );
    assert.throws(
      () => resolve(row({ path: { id: {} }, body: { count: {}, items: { items: { fields: { size: {} } } } } })),
      /items\[\]\.size fills no field of Item/,
    );
  });
});

describe('the OpenAPI document', () => {
  it("lints clean with Redocly's recommended rules", async () => {
    // The spec's own paths overlap (/api/roles/update/{id} and /api/roles/{id}/permissions);
    // concrete segments win, as OpenAPI prescribes and the router does, so that one rule is off.
    const config = await createConfig({ extends: ['recommended'], rules: { 'no-ambiguous-paths': 'off' } });
    const problems = await lintFromString({
      source: readFileSync('openapi.json', 'utf8'),
      absoluteRef: 'openapi.json',
      config,
    });
    assert.deepEqual(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
      [],
    );
  });

  it('describes every operation, marks the aliases, types integers as int32, and never types a 200 body as null', () => {
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8'));
    const operations = Object.entries(
      doc.paths as Record<
        string,
        Record<string, { description?: string; summary: string; operationId: string; 'x-alias-of'?: string }>
      >,
    ).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, ...op })),
    );
    assert.deepEqual(
      operations.filter((op) => !op.description).map((op) => op.at),
      [],
    );
    const aliases = operations.filter((op) => op['x-alias-of']);
    assert.deepEqual(aliases.map((op) => op.at).sort(), [
      'DELETE /api/roles/delete/{id}',
      'POST /api/roles/{id}/permissions',
      'POST /api/spam-protected-numbers/flag-settings',
      'PUT /api/roles/update/{id}',
      'PUT /api/spam-protected-numbers/update/{id}',
    ]);
    for (const alias of aliases)
      assert.ok(
        operations.some((op) => op.operationId === alias['x-alias-of']),
        `${alias.at} names its main route`,
      );
    const text = JSON.stringify({ paths: doc.paths, schemas: doc.components.schemas });
    assert.equal((text.match(/"type":"integer"(?!,"format":"int32")/g) ?? []).length, 0, 'every integer is int32');
    const login = doc.paths['/api/login'].post.responses['200'].content['application/json'].schema;
    assert.equal(login.$ref, '#/components/schemas/LoginResult');
    assert.equal(doc.components.schemas.LoginResult.type, 'object', 'never null');
  });

  it('gives every success answer an example, valid against its schema; every request body has one too', () => {
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8'));
    const examples: Array<[string, unknown, unknown]> = [];
    for (const [path, methods] of Object.entries(
      doc.paths as Record<
        string,
        Record<
          string,
          {
            requestBody?: { content: Record<string, { schema: unknown; example?: unknown }> };
            responses: Record<string, { content?: Record<string, { schema: unknown; example?: unknown }> }>;
          }
        >
      >,
    )) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const json = response.content?.['application/json'];
          if (status.startsWith('2') && json)
            examples.push([`${method.toUpperCase()} ${path} ${status}`, json.schema, json.example]);
        }
        const body = operation.requestBody?.content['application/json'];
        if (body) examples.push([`${method.toUpperCase()} ${path} request`, body.schema, body.example]);
      }
    }
    assert.ok(examples.length > 100);
    const wrong = examples.flatMap(([at, schema, example]) => {
      if (example === undefined) return [`${at}: no example`];
      const validate = exampleAjv.compile({ ...(schema as object), components: doc.components });
      return validate(example) ? [] : [`${at}: ${exampleAjv.errorsText(validate.errors)}`];
    });
    assert.deepEqual(wrong, []);
  });

  it('names a component per record, envelope and page, after its GraphQL type, and refers to it', () => {
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8'));
    const { schemas } = doc.components;
    for (const name of [
      'Role',
      'RolePage',
      'Pagination',
      'PhoneNumber',
      'PhoneNumberPage',
      'Webhook',
      'WebhookPage',
      'WebhookDelivery',
      'Agent',
      'Campaign',
      'Call',
      'AppointmentCallPage',
      'SpamProtectedNumber',
      'Workflow',
      'Me',
    ]) {
      assert.equal(schemas[name]?.type, 'object', `${name} is a component`);
      assert.equal(schemas[name]['x-graphql-type'], name.replace(/\d+$/, ''), `${name} names its GraphQL type`);
    }
    const roles = doc.paths['/api/roles'].get.responses['200'].content['application/json'].schema;
    assert.deepEqual(roles.properties.data, { $ref: '#/components/schemas/RolePage' });
    assert.deepEqual(schemas.RolePage.properties.records.items, { $ref: '#/components/schemas/Role' });
    assert.deepEqual(schemas.RolePage.properties.pagination, { $ref: '#/components/schemas/Pagination' });
    assert.deepEqual(Object.keys(schemas.Role.properties), ['id', 'title', 'created_at', 'updated_at']);
    // Every reference names a component, and no object made from a GraphQL type is left inline in the paths.
    const text = JSON.stringify(doc);
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g))
      assert.ok(schemas[name], `${name} exists`);
    assert.equal(JSON.stringify(doc.paths).includes('x-graphql-type'), false);
  });

  it('keeps GraphQL nullability: a non-null field is never nullable, a nullable enum lists null', () => {
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8'));
    const ref = doc.paths['/api/webhooks/{id}'].get.responses['200'].content['application/json'].schema.properties.data
      .$ref as string;
    const webhook = doc.components.schemas[ref.split('/').at(-1)!];
    assert.equal(webhook.properties.title.type, 'string', 'title is String!');
    assert.deepEqual(webhook.properties.disabled_reason.type, ['string', 'null'], 'disabledReason is nullable');
    assert.equal(webhook.properties.events.type, 'array');
    const walk = (node: unknown, visit: (schema: Record<string, unknown>) => void): void => {
      if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
      else if (node && typeof node === 'object') {
        visit(node as Record<string, unknown>);
        Object.values(node).forEach((n) => walk(n, visit));
      }
    };
    walk(doc, (schema) => {
      if (Array.isArray(schema.enum) && Array.isArray(schema.type) && schema.type.includes('null'))
        assert.ok(schema.enum.includes(null), `a nullable enum without null: ${JSON.stringify(schema)}`);
      if (schema.type === 'object' && !schema.properties)
        assert.notEqual(
          schema.additionalProperties,
          undefined,
          `an object says what it holds: ${JSON.stringify(schema)}`,
        );
    });
    const login = doc.paths['/api/login'].post.responses;
    assert.ok(login['429'].headers['Retry-After'], 'Retry-After is declared');
    assert.ok(Array.isArray(doc.tags) && doc.tags.length >= 9);
    const parameter = doc.paths['/api/webhooks'].get.parameters.find((p: { name: string }) => p.name === 'per_page');
    assert.equal(parameter.description, 'Default 15, at most 100', 'descriptions sit on the parameter');
  });

  it('gives every JSON request body an example that its own schema accepts, with real values rather than "string"', () => {
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8'));
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    let bodies = 0;
    for (const [path, operations] of Object.entries<
      Record<string, { requestBody?: { content: Record<string, { schema: object; example?: unknown }> } }>
    >(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const json = operation.requestBody?.content['application/json'];
        if (!json) continue;
        bodies++;
        const where = `${method.toUpperCase()} ${path}`;
        assert.ok(json.example && typeof json.example === 'object', `${where} has an example`);
        const validate = ajv.compile(json.schema);
        assert.ok(validate(json.example), `${where}: ${ajv.errorsText(validate.errors)}`);
        assert.doesNotMatch(JSON.stringify(json.example), /"string"/, where);
      }
    }
    assert.ok(bodies >= 30, `${bodies} bodies`);
  });
});

describe("the document's webhooks", () => {
  it('describes every event a receiver can get: the envelope with its data by $ref, the signature headers, the replies; each example fits', () => {
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8'));
    assert.deepEqual(
      Object.keys(doc.webhooks).sort(),
      [...EVENT_NAMES, 'call.inbound', 'tool.call', 'lead.predial'].sort(),
    );
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const events = Object.entries<{ post: Record<string, any> }>(doc.webhooks).filter(
      ([name]) => !['call.inbound', 'tool.call', 'lead.predial'].includes(name),
    );
    for (const [event, { post }] of events) {
      const json = post.requestBody.content['application/json'];
      assert.match(json.schema.$ref, /^#\/components\/schemas\/[A-Za-z]+Event$/, event);
      const envelope = doc.components.schemas[json.schema.$ref.split('/').at(-1)];
      assert.deepEqual(envelope.properties.event, { type: 'string', const: event });
      assert.match(envelope.properties.data.$ref, /Data$/);
      const validate = ajv.compile({ ...json.schema, components: doc.components });
      assert.ok(validate(json.example), `${event}: ${ajv.errorsText(validate.errors)}`);
      assert.equal(
        validate({ ...json.example, event: 'call.exploded' }),
        false,
        `${event}: another event name does not fit`,
      );
      assert.deepEqual(
        post.parameters.map((p: { name: string; in: string; required: boolean }) => `${p.in} ${p.name} ${p.required}`),
        [
          'header webhook-id true',
          'header webhook-timestamp true',
          'header webhook-signature true',
          'header x-webhook-id true',
          'header x-webhook-event true',
          'header x-webhook-attempt true',
          'header x-webhook-signature true',
        ],
      );
      assert.deepEqual(Object.keys(post.responses), ['200', '410', '429', 'default']);
    }
  });
});

describe("the document's decision request (the call path)", () => {
  it('states the request and each answer, its examples fit, and an answer it does not take is refused', () => {
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8'));
    const { post } = doc.webhooks['call.inbound'];
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const request = post.requestBody.content['application/json'];
    assert.ok(ajv.compile({ ...request.schema, components: doc.components })(request.example));
    const answer = post.responses['200'].content['application/json'];
    const validate = ajv.compile({ ...answer.schema, components: doc.components });
    assert.deepEqual(Object.keys(answer.examples), ['answer', 'forward', 'reject']);
    for (const [name, example] of Object.entries<{ value: unknown }>(answer.examples))
      assert.ok(validate(example.value), `${name}: ${ajv.errorsText(validate.errors)}`);
    for (const wrong of [{ action: 'dance' }, { action: 'forward' }, { action: 'reject', to: '+12125550142' }, {}])
      assert.equal(validate(wrong), false, JSON.stringify(wrong));
    assert.deepEqual(
      post.parameters.map((p: { name: string }) => p.name),
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
    );
  });
});

describe("the document's pre-dial request (the dialer)", () => {
  it('states the request and each answer, its examples fit, and an answer it does not take is refused', () => {
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8'));
    const { post } = doc.webhooks['lead.predial'];
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const request = post.requestBody.content['application/json'];
    assert.ok(ajv.compile({ ...request.schema, components: doc.components })(request.example));
    const answer = post.responses['200'].content['application/json'];
    const validate = ajv.compile({ ...answer.schema, components: doc.components });
    assert.deepEqual(Object.keys(answer.examples), ['dial', 'skip']);
    for (const [name, example] of Object.entries<{ value: unknown }>(answer.examples))
      assert.ok(validate(example.value), `${name}: ${ajv.errorsText(validate.errors)}`);
    for (const wrong of [{ action: 'answer' }, { action: 'skip', variables: {} }, { action: 'dial', reason: 'x' }, {}])
      assert.equal(validate(wrong), false, JSON.stringify(wrong));
  });
});

describe("the receiver's check of deliveries", () => {
  it('passes a delivery that fits its event, and names what is wrong in one that does not', () => {
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8'));
    const example = doc.webhooks['agent.created'].post.requestBody.content['application/json'].example;
    const headers = {
      'webhook-id': 'msg_01JD0000000000000000000000',
      'webhook-timestamp': '1763485200',
      'webhook-signature': 'v1,WMTN/GjMrriVXDg2LTX6SCDXMOddvXqHfUO7rDl31MA=',
      'x-webhook-id': 'msg_01JD0000000000000000000000',
      'x-webhook-event': 'agent.created',
      'x-webhook-attempt': '1',
      'x-webhook-signature': `sha256=${'0'.repeat(64)}`,
    };
    assert.equal(deliveryViolation(headers, JSON.stringify(example)), undefined);
    const { name: _name, ...withoutName } = example.data;
    assert.match(
      deliveryViolation(headers, JSON.stringify({ ...example, data: withoutName })) ?? '',
      /must have required property 'name'/,
    );
    assert.match(
      deliveryViolation({ ...headers, 'x-webhook-event': 'call.ended' }, JSON.stringify(example)) ?? '',
      /call\.ended/,
    );
    assert.match(
      deliveryViolation({ ...headers, 'webhook-signature': 'sha256=abc' }, JSON.stringify(example)) ?? '',
      /header webhook-signature/,
    );
    assert.match(deliveryViolation({ ...headers, 'x-webhook-event': 'call.exploded' }, '{}') ?? '', /no webhook for/);
  });
});

describe('the OpenAPI examples against the service', () => {
  let app: TestApp;
  before(async () => (app = await startTestApp()));
  after(() => app?.close());

  it('accepts the documented example bodies of the create routes as they stand', async () => {
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8'));
    const token = await app.login('owner@acme.test');
    for (const path of [
      '/api/webhooks',
      '/api/roles',
      '/api/Workflow/create',
      '/api/Workflow/folder',
      '/api/pipeline',
      '/api/agents',
      '/api/contacts',
    ]) {
      const operation = doc.paths[path].post;
      const res = await app.request('POST', path, {
        token,
        body: operation.requestBody.content['application/json'].example,
      });
      const success = Object.keys(operation.responses).find((code) => code.startsWith('2'));
      assert.equal(String(res.status), success, `${path}: ${res.text}`);
    }
  });
});
