import 'reflect-metadata';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Document, Spectral, type ISpectralDiagnostic, type RulesetDefinition } from '@stoplight/spectral-core';
import parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import owaspModule from '@stoplight/spectral-owasp-ruleset';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { parse, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { createSchema } from '../src/graphql/schema.js';
import { resolveRoute } from '../src/rest/derive.js';
import { paramSchema } from '../src/rest/openapi-params.js';
import { variablesFor } from '../src/rest/params.js';
import type { Param, ResolvedRoute } from '../src/rest/route.js';
import { routeTable } from '../src/rest/routes/index.js';
import { IdCodec, toBase64Id } from '../src/kernel/ids.js';
import { ValidationError } from '../src/kernel/errors.js';
import { INT32 } from '../src/kernel/messages.js';
import { bodyExample } from '../src/rest/examples.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { EVENT_NAMES } from '../src/events/catalog.js';

// The committed openapi.json as the tools integrators use read it: Spectral's
// OpenAPI and OWASP API Security rulesets (clean, but for the OWASP rules
// docs/adr/0043-bounds-as-data-and-the-document-the-tools-read.md names as not applying, each excused here for that reason
// only), openapi-typescript with a client compiled by tsc --strict, and every
// bound the document states checked to be the one the server enforces.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const documentText = readFileSync(path.join(root, 'openapi.json'), 'utf8');
const document = JSON.parse(documentText) as {
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
};

const lint = async (ruleset: RulesetDefinition): Promise<ISpectralDiagnostic[]> => {
  const spectral = new Spectral();
  spectral.setRuleset(ruleset);
  return spectral.run(new Document(documentText, parsers.Json, 'openapi.json'));
};

/** An operation that takes no Bearer token: sign-in and the provider's callbacks. */
const tokenless = (at: ReadonlyArray<string | number>) => {
  if (at[0] !== 'paths') return false;
  const security = document.paths[at[1] as string]?.[at[2] as string]?.security;
  return security !== undefined && !security.some((scheme) => Object.keys(scheme as object).includes('bearerAuth'));
};
/** Where an answer (or a delivery, which the service sends) is described, rather than what a client sends. */
const describesAnAnswer = (at: ReadonlyArray<string | number>) =>
  (at[0] === 'paths' && at.includes('responses')) ||
  (at[0] === 'components' && (at[1] === 'schemas' || at[1] === 'headers'));

/** The OWASP rules that do not apply where they fire, each with the reason docs/adr/0043-bounds-as-data-and-the-document-the-tools-read.md gives. */
const NOT_APPLICABLE: Record<string, (at: ReadonlyArray<string | number>) => boolean> = {
  // Free text (names, titles, messages, searches) has no format or pattern; maxLength bounds it.
  'owasp:api4:2023-string-restricted': () => true,
  // Bounds are for what a client sends; answers are bounded by pagination and by what was accepted.
  'owasp:api4:2023-string-limit': describesAnAnswer,
  'owasp:api4:2023-integer-limit': describesAnAnswer,
  'owasp:api4:2023-array-limit': describesAnAnswer,
  // Refused before the caller is known (unreadable body, 413, 401), or a route without a token: no budget to report.
  'owasp:api4:2023-rate-limit': (at) => tokenless(at) || ['400', '401', '413'].includes(String(at[4])),
  'owasp:api4:2023-rate-limit-responses-429': tokenless,
  // Sign-in answers bad credentials with the spec's 404; a callback's bad signature is 403.
  'owasp:api8:2023-define-error-responses-401': tokenless,
  // Signing in is the write that makes a token.
  'owasp:api2:2023-write-restricted': (at) => at.length === 0 || at[1] === '/api/login',
  // The spec's company_id is an integer; whether the caller may see the company is checked (403).
  'owasp:api1:2023-no-numeric-ids': (at) => at.includes('parameters'),
  // The rule matches any key named `headers`: here also a webhook's custom headers and an attempt's header
  // names, as schema properties and in examples; every answer's own header fields do name it.
  'owasp:api8:2023-define-cors-origin': (at) =>
    at.includes('properties') || at.includes('example') || (at[0] === 'components' && at[1] === 'schemas'),
};

describe('openapi.json in the tools integrators use', () => {
  it("lints clean with Spectral's spectral:oas ruleset", async () => {
    const findings = await lint(oas as RulesetDefinition);
    assert.deepEqual(
      findings.map((f) => `${f.code} at ${f.path.join('.')}: ${f.message}`),
      [],
    );
  });

  it('lints clean with the OWASP API Security ruleset, but for the rules that do not apply where they fire', async () => {
    const owasp = ((owaspModule as { default?: unknown }).default ?? owaspModule) as RulesetDefinition;
    const findings = await lint(owasp);
    // The excuses are narrow: the ruleset still finds these, and nothing else remains.
    assert.ok(
      findings.some((f) => f.code === 'owasp:api4:2023-string-limit'),
      'the answers hold unbounded strings, so the rule does fire',
    );
    const left = findings.filter((f) => !NOT_APPLICABLE[String(f.code)]?.(f.path));
    assert.deepEqual(
      left.map((f) => `${f.code} at ${f.path.join('.')}: ${f.message}`),
      [],
    );
  });

  it('no request body refers to a component schema (so the answers-only excuse cannot hide one)', () => {
    const bodies = Object.values(document.paths)
      .flatMap((methods) => Object.values(methods))
      .map((op) => JSON.stringify((op as { requestBody?: unknown }).requestBody ?? {}));
    assert.equal(bodies.filter((body) => body.includes('#/components/schemas/')).length, 0);
  });
});

describe('a client generated with openapi-typescript', () => {
  let dir: string;
  let generated: string;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'switchboard-client-'));
    generated = astToString(await openapiTS(JSON.parse(documentText)));
    writeFileSync(path.join(dir, 'openapi.d.ts'), generated);
    copyFileSync(path.join(root, 'test/fixtures/rest-client.ts'), path.join(dir, 'client.ts'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('names a type for every record and every event', () => {
    for (const name of [
      'Role',
      'RolePage',
      'PhoneNumber',
      'Webhook',
      'WebhookDelivery',
      'Pagination',
      'Agent',
      'Campaign',
      'Contact',
      'Pipeline',
      'SmsMessage',
      'Workflow',
      'Error',
    ]) {
      assert.match(generated, new RegExp(`^        ${name}: \\{`, 'm'), `components.schemas.${name}`);
    }
    for (const event of EVENT_NAMES) {
      const type = event
        .split(/[._]/)
        .map((part) => part[0].toUpperCase() + part.slice(1))
        .join('');
      assert.match(
        generated,
        new RegExp(`^        ${type}Event: \\{\\n[^}]*event: "${event.replace('.', '\\.')}";`, 'm'),
        `${type}Event`,
      );
      assert.match(generated, new RegExp(`^    "${event.replace('.', '\\.')}": \\{`, 'm'), `webhooks["${event}"]`);
    }
  });

  it('compiles a client that signs in, reads roles, creates a webhook and handles every delivery, under tsc --strict with no cast', () => {
    const code = readFileSync(path.join(dir, 'client.ts'), 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '');
    assert.doesNotMatch(code, /\sas\s+(?!const\b)\w|\w!(\.|;|\))/, 'the client casts nothing');
    const program = ts.createProgram([path.join(dir, 'client.ts')], {
      strict: true,
      noEmit: true,
      noUncheckedIndexedAccess: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    assert.deepEqual(problems, []);
  });

  it('and tsc refuses a webhook create without url or events, an SMS node without its message, and a field the event does not have', () => {
    const wrong = `${readFileSync(path.join(dir, 'client.ts'), 'utf8')}
const missing: NewWebhook = { title: 'No url' };
export const noMessage: NewWorkflow = { trigger_config: { nodes: [{ id: 'a', kind: 'action', type: 'send_sms', config: {} }] } };
export const unknownField = (d: Delivery) => (d.event === 'call.ended' ? d.data.direction : '');
`;
    writeFileSync(
      path.join(dir, 'wrong.ts'),
      wrong.replace('type NewWebhook', 'export type NewWebhook').replace('type NewWorkflow', 'export type NewWorkflow'),
    );
    const program = ts.createProgram([path.join(dir, 'wrong.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
      .join('\n');
    assert.match(problems, /missing the following properties from type .*: url, events/);
    assert.match(problems, /Property 'direction' does not exist/);
    assert.match(problems, /Property 'message' is missing/);
  });
});

/**
 * Values just past each bound the parameter's schema states: [value, field,
 * whether the bound is the field's own (its service's rule) or its type's
 * default (the REST layer's)].
 */
function* pastBounds(field: string, param: Param): Generator<[unknown, string, 'own' | 'default']> {
  const schema = paramSchema(param);
  if (param.type === 'string' && typeof schema.maxLength === 'number') {
    yield ['x'.repeat(schema.maxLength + 1), field, param.maxLength === undefined ? 'default' : 'own'];
  }
  if (param.type === 'integer') {
    if (typeof schema.minimum === 'number' && schema.minimum > INT32.min) yield [schema.minimum - 1, field, 'own'];
    if (typeof schema.maximum === 'number' && schema.maximum < INT32.max) yield [schema.maximum + 1, field, 'own'];
  }
  if (param.type === 'array' && typeof schema.maxItems === 'number') {
    const item = bodyExample({ [field]: param })[field] as unknown[];
    yield [new Array(schema.maxItems + 1).fill(item[0]), field, param.maxItems === undefined ? 'default' : 'own'];
    for (const [value, at, whose] of pastBounds(`${field}.0`, param.items!)) yield [[value], at, whose];
  }
  // An object of free keys is held to the keys its schema allows (a tool's parameters, custom fields): by the REST layer.
  if ((param.type === 'object' || param.type === 'json') && !param.fields && typeof schema.maxProperties === 'number') {
    yield [
      Object.fromEntries(Array.from({ length: schema.maxProperties + 1 }, (_, i) => [`k${i}`, 1])),
      field,
      'default',
    ];
  }
  if (param.type === 'object' && param.fields) {
    const example = bodyExample(param.fields);
    for (const [name, inner] of Object.entries(param.fields)) {
      for (const [value, at, whose] of pastBounds(`${field}.${name}`, inner))
        yield [{ ...example, [name]: value }, at, whose];
    }
  }
}

const resolveAll = (schema: GraphQLSchema): ResolvedRoute[] =>
  routeTable.map((route) =>
    resolveRoute(schema, route, parse(route.document).definitions[0] as OperationDefinitionNode),
  );

describe('every bound the document states is checked by the server', () => {
  let schema: GraphQLSchema;
  let app: TestApp;
  let owner: string;
  const ids = new IdCodec(Buffer.alloc(32, 7));
  before(async () => {
    schema = await createSchema();
    app = await startTestApp();
    owner = await app.login('owner@acme.test');
  });
  after(async () => {
    await app.close();
  });

  it("a field without a bound of its own is held to its type's default, on every route (422 naming it)", () => {
    let checked = 0;
    for (const route of resolveAll(schema)) {
      const pathValues = Object.fromEntries(
        Object.entries(route.params.path ?? {}).map(([name, p]) => [
          name,
          p.type === 'id' && !p.idForms?.includes('numeric') ? toBase64Id(1) : '1',
        ]),
      );
      for (const group of ['query', 'body'] as const) {
        for (const [name, param] of Object.entries(route.params[group] ?? {})) {
          for (const [value, field, whose] of pastBounds(name, param)) {
            if (whose !== 'default') continue;
            const request = {
              path: { ...pathValues },
              query: group === 'query' ? { [name]: value } : {},
              body: group === 'body' ? { [name]: value } : {},
            };
            assert.throws(
              () => variablesFor(route, request, ids),
              (error: unknown) => {
                assert.ok(error instanceof ValidationError, `${route.operationId} ${field}: ${String(error)}`);
                assert.ok(
                  error.fieldErrors?.[field]?.length,
                  `${route.operationId} ${field}: ${JSON.stringify(error.fieldErrors)}`,
                );
                return true;
              },
            );
            checked++;
          }
        }
      }
    }
    assert.ok(checked > 50, `${checked} default bounds checked`);
  });

  it('a field past its own bound is refused by its service (422 naming it, nothing made), on every route that takes no path id', async () => {
    const before = await app.fingerprint();
    const unchecked: string[] = [];
    let checked = 0;
    for (const route of resolveAll(schema)) {
      if (route.params.path) continue;
      const [method, path] = [route.methods[0], route.paths[0]];
      for (const group of ['query', 'body'] as const) {
        const params = route.params[group] ?? {};
        for (const [name, param] of Object.entries(params)) {
          for (const [value, field, whose] of pastBounds(name, param)) {
            if (whose !== 'own') continue;
            const send = (query: Record<string, string>) =>
              app.request(
                method,
                `${path}${group === 'query' ? `?${new URLSearchParams({ ...query, [name]: String(value) })}` : ''}`,
                {
                  token: route.auth === false ? undefined : owner,
                  body: group === 'body' ? { ...bodyExample(params), [name]: value } : undefined,
                },
              );
            let response = await send({});
            // A list whose other rules stop it first (one subject filter is required) gets the field they name, once.
            const others = Object.keys(response.body.errors ?? {}).filter((key) => key !== name && params[key]);
            if (group === 'query' && others.length)
              response = await send(
                Object.fromEntries(
                  others.map((key) => [
                    key,
                    key.endsWith('_id') ? '1' : String(bodyExample({ [key]: params[key] })[key]),
                  ]),
                ),
              );
            // A rule may name the list that holds the item (`fields.0.choices` for one choice too long).
            const named = Object.keys(response.body.errors ?? {}).some(
              (key) => key === field || field.startsWith(`${key}.`),
            );
            if (response.status !== 422 || !named)
              unchecked.push(`${method} ${path} ${field}: ${response.status} ${response.text.slice(0, 200)}`);
            checked++;
          }
        }
      }
    }
    assert.deepEqual(unchecked, []);
    assert.ok(checked > 40, `${checked} own bounds checked`);
    assert.equal(await app.fingerprint(), before);
  });
});
