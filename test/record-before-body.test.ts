import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSchema } from '../src/graphql/schema.js';
import { toBase64Id } from '../src/kernel/ids.js';
import { compileRoutes, type CompiledRoute } from '../src/rest/compile.js';
import type { Param } from '../src/rest/route.js';
import { routeTable } from '../src/rest/routes/index.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// "No such record" is never hidden behind "bad body": every row whose path
// names a record answers 404 for a missing id and for another company's id,
// whatever its body or query (an empty body, every field of the wrong type),
// and changes nothing.

let app: TestApp;
let owner: string;
let routes: CompiledRoute[];

/** The table of each id kind, to find another company's record of it. */
const TABLES: Record<string, [table: string, column: string]> = {
  agent: ['agents', 'id'],
  agent_tool: ['agent_tools', 'id'],
  call: ['calls', 'id'],
  campaign: ['campaigns', 'id'],
  decision_endpoint: ['decision_endpoints', 'id'],
  phone_number: ['phone_numbers', 'id'],
  pipeline: ['pipelines', 'id'],
  role: ['roles', 'id'],
  spam_protected_number: ['spam_protected_numbers', 'id'],
  webhook: ['webhooks', 'id'],
  workflow: ['workflows', 'id'],
  workflow_builder: ['workflows', 'builder_id'],
};

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  routes = compileRoutes(await createSchema(), routeTable);
  // Gamma Solar gets a record of each kind it lacks in the demo data, so each kind has a foreign id to try.
  const gamma = await app.login('owner@gamma.test');
  const agent = await app.request('POST', '/api/agents', { token: gamma, body: { name: 'Foreign agent' } });
  assert.equal(agent.status, 201, agent.text);
  const tool = await app.request('POST', `/api/agents/${agent.body.data.id}/tools`, {
    token: gamma,
    body: {
      name: 'lookup',
      description: 'Looks a thing up',
      parameters: { type: 'object', properties: {} },
      url: 'http://127.0.0.1:9/tool',
      fallback_message: 'later',
    },
  });
  assert.equal(tool.status, 201, tool.text);
  const campaign = await app.request('POST', '/api/campaigns', { token: gamma, body: { name: 'Foreign campaign' } });
  assert.equal(campaign.status, 201, campaign.text);
  const webhook = await app.request('POST', '/api/webhooks', {
    token: gamma,
    body: { title: 'Foreign hook', url: 'http://127.0.0.1:9/hooks', events: ['call.started'] },
  });
  assert.equal(webhook.status, 201, webhook.text);
  const endpoint = await app.request('POST', '/api/decision-endpoints', {
    token: gamma,
    body: { url: 'http://127.0.0.1:9/route', fallback_action: 'reject' },
  });
  assert.equal(endpoint.status, 201, endpoint.text);
});
after(() => app.close());

/** A value of the wrong type for a parameter, as JSON (body) and as text (query). */
function wrong(param: Param): { json: unknown; text: string } {
  switch (param.type) {
    case 'integer':
    case 'number':
      return { json: 'not a number', text: 'not-a-number' };
    case 'boolean':
      return { json: 'maybe', text: 'maybe' };
    case 'array':
      return { json: 'not a list', text: '\u0000' };
    case 'object':
      return { json: ['not an object'], text: '\u0000' };
    default:
      return { json: ['not a string'], text: '\u0000' };
  }
}

const idParams = (route: CompiledRoute) =>
  Object.entries(route.route.params.path ?? {}).filter(([, param]) => param.type === 'id' && TABLES[param.idKind!]);

/** The path with each id in the first form the row takes, other parameters "1". */
function pathWith(route: CompiledRoute, id: number): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const param = route.route.params.path?.[name];
    if (param?.type !== 'id' || !TABLES[param.idKind!]) return '1';
    return (param.idForms ?? ['numeric'])[0] === 'base64' ? toBase64Id(id) : String(id);
  });
}

describe('a missing or foreign id is 404 whatever the body', () => {
  it('covers every row whose path names a record', () => {
    const covered = routes.filter((route) => route.route.auth !== false && idParams(route).length > 0);
    // The rows the issue named are among them.
    for (const path of ['/api/agents/{id}/tools', '/api/roles/{id}', '/api/webhooks/{id}/missing-events'])
      assert.ok(
        covered.some((route) => route.path === path),
        path,
      );
  });

  it('answers 404 naming the record, and changes nothing', async () => {
    const before = await app.fingerprint();
    const failures: string[] = [];
    for (const route of routes) {
      const named = idParams(route);
      if (route.route.auth === false || named.length === 0) continue;
      const [, param] = named[0];
      const [table, column] = TABLES[param.idKind!];
      const [foreign] = await app.sql(
        `SELECT ${column} AS id FROM ${table} WHERE company_id = (SELECT id FROM companies WHERE name = 'Gamma Solar') LIMIT 1`,
      );
      assert.ok(foreign, `Gamma Solar has a ${param.idKind}`);
      const body = Object.fromEntries(
        Object.entries(route.route.params.body ?? {}).map(([name, p]) => [name, wrong(p).json]),
      );
      const query = new URLSearchParams(
        Object.entries(route.route.params.query ?? {}).map(([name, p]) => [name, wrong(p).text]),
      ).toString();
      for (const [label, id] of [
        ['foreign', foreign.id as number],
        ['missing', 2_000_000_000],
      ] as const) {
        const bodies: unknown[] = route.method === 'GET' ? [undefined] : [{}, body];
        for (const sent of bodies) {
          const path = pathWith(route, id) + (route.method === 'GET' && query ? `?${query}` : '');
          const response = await app.request(route.method, path, { token: owner, body: sent });
          if (response.status !== 404 || !/not found/.test(response.body?.message ?? ''))
            failures.push(
              `${route.method} ${route.path} (${label}, body ${JSON.stringify(sent)}): ${response.status} ${response.text.slice(0, 160)}`,
            );
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.equal(await app.fingerprint(), before);
  });

  it('still answers 422 naming the field for the caller own record', async () => {
    const [role] = await app.sql(
      "SELECT id FROM roles WHERE company_id = (SELECT id FROM companies WHERE name = 'Acme Agency') AND NOT is_owner LIMIT 1",
    );
    const response = await app.request('PUT', `/api/roles/${role.id}`, { token: owner, body: { title: ['x'] } });
    assert.equal(response.status, 422, response.text);
    assert.ok(response.body.errors.title, response.text);
  });
});
