import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { isEnumType, Kind, type OperationDefinitionNode, type TypeNode } from 'graphql';
import { createSchema } from '../src/graphql/schema.js';
import { compileRoutes } from '../src/rest/compile.js';
import { camelCase } from '../src/rest/params.js';
import type { Param } from '../src/rest/route.js';
import { routeTable } from '../src/rest/routes/index.js';

// The OpenAPI document against its sources: each row's parameters agree with
// the GraphQL operation it runs, and the document lints clean with Redocly's
// recommended rules. (The contract test in helpers/contract.ts checks every
// REST response of the suite against the document.)

const named = (type: TypeNode): string => (type.kind === Kind.NAMED_TYPE ? type.name.value : named(type.type));
const isList = (type: TypeNode): boolean => (type.kind === Kind.NON_NULL_TYPE ? isList(type.type) : type.kind === Kind.LIST_TYPE);

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
            if ((param.type === 'array') !== isList(type)) problems.push(`${where}: ${name} is ${param.type}, $${variable.variable.name.value} is ${named(type)}${isList(type) ? ' (list)' : ''}`);
          } else if (isEnumType(schema.getType(named(type)))) {
            // A GraphQL enum: the row offers exactly its values.
            const values = (schema.getType(named(type)) as import('graphql').GraphQLEnumType).getValues().map((v) => v.value).sort();
            if (param.type !== 'string' || JSON.stringify([...(param.enum ?? [])].sort()) !== JSON.stringify(values)) problems.push(`${where}: ${name} should list the values of ${named(type)}: ${values.join(', ')}`);
          } else if (isList(type) || !FITS[param.type].includes(named(type))) {
            problems.push(`${where}: ${name} is ${param.type}, $${variable.variable.name.value} is ${named(type)}${isList(type) ? ' (list)' : ''}`);
          }
          const nonNull = type.kind === Kind.NON_NULL_TYPE && !variable.defaultValue;
          if (nonNull && group !== 'path' && !param.required && !param.aliases?.length) problems.push(`${where}: $${variable.variable.name.value} is non-null but ${name} is optional`);
        }
      }
      for (const [name, variable] of variables) {
        if (!filled.has(name) && variable.type.kind === Kind.NON_NULL_TYPE) problems.push(`${where}: $${name} is non-null and no parameter fills it`);
      }
    }
    assert.deepEqual(problems, []);
  });
});

describe('the OpenAPI document', () => {
  it("lints clean with Redocly's recommended rules", async () => {
    // The spec's own paths overlap (/api/roles/update/{id} and /api/roles/{id}/permissions);
    // concrete segments win, as OpenAPI prescribes and the router does, so that one rule is off.
    const config = await createConfig({ extends: ['recommended'], rules: { 'no-ambiguous-paths': 'off' } });
    const problems = await lintFromString({ source: readFileSync('openapi.json', 'utf8'), absoluteRef: 'openapi.json', config });
    assert.deepEqual(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`), []);
  });

  it('keeps GraphQL nullability: a non-null field is never nullable, a nullable enum lists null', () => {
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8'));
    const webhook = doc.paths['/api/webhooks/{id}'].get.responses['200'].content['application/json'].schema.properties.data;
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
      if (Array.isArray(schema.enum) && Array.isArray(schema.type) && schema.type.includes('null')) assert.ok(schema.enum.includes(null), `a nullable enum without null: ${JSON.stringify(schema)}`);
      if (schema.type === 'object' && !schema.properties) assert.notEqual(schema.additionalProperties, undefined, `an object says what it holds: ${JSON.stringify(schema)}`);
    });
    const login = doc.paths['/api/login'].post.responses;
    assert.ok(login['429'].headers['Retry-After'], 'Retry-After is declared');
    assert.ok(Array.isArray(doc.tags) && doc.tags.length >= 9);
    const parameter = doc.paths['/api/webhooks'].get.parameters.find((p: { name: string }) => p.name === 'per_page');
    assert.equal(parameter.description, 'Default 15, at most 100', 'descriptions sit on the parameter');
  });
});
