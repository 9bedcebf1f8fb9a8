import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { graphqlBreaking, openapiBreaking, unnamed } from '../src/contract/check.js';

// The breaking-change check of the contract: what it finds, what naming a
// change in the changelog lets through, and the real contract against its
// last release (what CI runs as npm run check:contract).

const doc = (paths: Record<string, unknown>, schemas: Record<string, unknown> = {}) => ({
  openapi: '3.1.0',
  paths,
  components: { schemas },
});
const answer = (schema: unknown) => ({ '200': { description: 'ok', content: { 'application/json': { schema } } } });
const hook = (properties: Record<string, unknown>) => ({ type: 'object', properties });

describe('the contract check', () => {
  it('finds a GraphQL field removed, and lets it through once the Unreleased section names it', async () => {
    const changes = await graphqlBreaking(
      'type Query { a: Int, b(x: Int): String }',
      'type Query { a: Int, b(x: Int!): String }',
    );
    assert.deepEqual(
      changes.map((c) => c.path),
      ['Query.b.x'],
    );
    const older =
      '# Changelog\n\n## [Unreleased]\n\n### Added\n- nothing\n\n## [0.1.0]\n\n- `Query.b.x` was optional\n';
    assert.equal(unnamed(changes, older).length, 1, 'named only under an older release');
    assert.equal(unnamed(changes, '## [Unreleased]\n### Changed\n- `Query.b.x` is required now\n').length, 0);
  });

  it('finds OpenAPI routes, answers and fields removed, requests narrowed, and passes what only grows', () => {
    const released = doc(
      {
        '/api/hooks': {
          get: {
            parameters: [{ name: 'status', in: 'query', schema: { type: 'string', enum: ['on', 'off'] } }],
            responses: answer({ $ref: '#/components/schemas/Hook' }),
          },
          post: {
            requestBody: { content: { 'application/json': { schema: hook({ title: { type: 'string' } }) } } },
            responses: answer(hook({})),
          },
        },
        '/api/old': { get: { responses: answer({ type: 'object' }) } },
      },
      { Hook: hook({ id: { type: 'integer' }, title: { type: 'string' } }) },
    );
    const current = doc(
      {
        '/api/hooks': {
          get: {
            parameters: [
              { name: 'status', in: 'query', schema: { type: 'string', enum: ['on'] } },
              { name: 'company', in: 'query', required: true, schema: { type: 'string' } },
            ],
            responses: answer({ $ref: '#/components/schemas/Hook' }),
          },
          post: {
            requestBody: {
              content: {
                'application/json': { schema: { ...hook({ title: { type: 'string' } }), required: ['title'] } },
              },
            },
            responses: answer(hook({})),
          },
        },
        '/api/new': { get: { responses: answer({ type: 'object' }) } },
      },
      { Hook: hook({ id: { type: 'string' }, extra: { type: 'string' } }) },
    );
    assert.deepEqual(
      openapiBreaking(released, current)
        .map((c) => c.path)
        .sort(),
      [
        'GET /api/hooks 200.id',
        'GET /api/hooks 200.title',
        'GET /api/hooks company',
        'GET /api/hooks status',
        'GET /api/old',
        'POST /api/hooks body.title',
      ],
    );
    assert.deepEqual(openapiBreaking(released, released), []);
  });

  it('the contract against its last release: every breaking change named in CHANGELOG.md', async () => {
    const read = (file: string) => readFileSync(file, 'utf8');
    const changes = [
      ...(await graphqlBreaking(read('contract/released/schema.graphql'), read('schema.graphql'))),
      ...openapiBreaking(JSON.parse(read('contract/released/openapi.json')), JSON.parse(read('openapi.json'))),
    ];
    assert.deepEqual(unnamed(changes, read('CHANGELOG.md')), []);
  });
});
