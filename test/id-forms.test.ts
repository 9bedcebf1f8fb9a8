import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toBase64Id } from '../src/kernel/ids.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// Every id-taking route: each accepted id form works; another company's id,
// an unknown id, a malformed id and a form the route does not take are 404.

let app: TestApp;
let owner: string;
let ids: Record<string, number>;

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  ids = Object.fromEntries((await app.sql('SELECT name, id FROM companies')).map((r) => [r.name, r.id]));
});
after(() => app.close());

const first = async (table: string, company: string, extra = 'true') =>
  (await app.sql(`SELECT id FROM ${table} WHERE company_id = $1 AND ${extra} ORDER BY id LIMIT 1`, [ids[company]]))[0]
    .id as number;
const encrypted = (kind: string, id: number) => app.running.services.ids.encrypt(kind, id);

interface Case {
  name: string;
  method: string;
  path: (id: string) => string;
  body?: unknown;
  kind: string;
  accepted: Array<'numeric' | 'base64' | 'encrypted'>;
  own: () => Promise<number>;
  foreign: () => Promise<number>;
  okStatus?: number;
}

const forms = {
  numeric: (_k: string, id: number) => String(id),
  base64: (_k: string, id: number) => toBase64Id(id),
  encrypted,
};

const cases: Case[] = [
  {
    name: 'GET role permissions',
    method: 'GET',
    path: (id) => `/api/roles/${id}/permissions`,
    kind: 'role',
    accepted: ['numeric', 'base64', 'encrypted'],
    own: () => first('roles', 'Acme Agency'),
    foreign: () => first('roles', 'Gamma Solar'),
  },
  {
    name: 'GET pipeline stages',
    method: 'GET',
    path: (id) => `/api/pipeline/${id}/stages`,
    kind: 'pipeline',
    accepted: ['base64'],
    own: () => first('pipelines', 'Acme Agency'),
    foreign: () => first('pipelines', 'Gamma Solar'),
  },
  {
    name: 'PUT workflow status',
    method: 'PUT',
    path: (id) => `/api/Workflow/${id}/status`,
    body: { status: 'draft' },
    kind: 'workflow',
    accepted: ['base64'],
    own: () => first('workflows', 'Acme Agency'),
    foreign: () => first('workflows', 'Gamma Solar'),
  },
  {
    name: 'GET call details',
    method: 'GET',
    path: (id) => `/api/ai/dashboard/calls/${id}`,
    kind: 'call',
    accepted: ['numeric', 'base64', 'encrypted'],
    own: () => first('calls', 'Acme Agency'),
    foreign: () => first('calls', 'Gamma Solar'),
  },
  {
    name: 'PUT phone number chatbot',
    method: 'PUT',
    path: (id) => `/api/phone-numbers/${id}/chatbot`,
    body: { agent_id: null },
    kind: 'phone_number',
    accepted: ['numeric', 'base64', 'encrypted'],
    own: () => first('phone_numbers', 'Acme Agency'),
    foreign: () => first('phone_numbers', 'Gamma Solar'),
  },
  {
    name: 'PUT spam-protected number (alias path)',
    method: 'PUT',
    path: (id) => `/api/spam-protected-numbers/update/${id}`,
    body: { pnumber: '+15550001111' },
    kind: 'spam_protected_number',
    accepted: ['numeric', 'base64'],
    own: () => first('spam_protected_numbers', 'Acme Agency', "type = 'Custom'"),
    foreign: () => first('spam_protected_numbers', 'Gamma Solar', "type = 'Custom'"),
  },
];

describe('id forms on every id-taking route', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const own = await c.own();
      const foreign = await c.foreign();
      for (const form of ['numeric', 'base64', 'encrypted'] as const) {
        const res = await app.request(c.method, c.path(encodeURIComponent(forms[form](c.kind, own))), {
          token: owner,
          body: c.body,
        });
        assert.equal(res.status, c.accepted.includes(form) ? (c.okStatus ?? 200) : 404, `${form}: ${res.text}`);
      }
      const refused = [
        ...c.accepted.map((form) => forms[form](c.kind, foreign)),
        forms[c.accepted[0]](c.kind, 987654),
        'not-an-id!',
        encrypted(c.kind === 'role' ? 'workflow' : 'role', own),
      ];
      for (const raw of refused) {
        const res = await app.request(c.method, c.path(encodeURIComponent(raw)), { token: owner, body: c.body });
        assert.equal(res.status, 404, `${raw}: ${res.text}`);
        assert.equal(res.body.success, false);
        assert.match(res.body.message, /not found\.$/);
      }
    });
  }

  it('DELETE role by base64 id, and the builder by builder id only', async () => {
    const created = await app.request('POST', '/api/roles', { token: owner, body: { title: 'Temp' } });
    const del = await app.request('DELETE', `/api/roles/${toBase64Id(created.body.data.id)}`, { token: owner });
    assert.equal(del.status, 200);
    const [w] = await app.sql('SELECT id, builder_id FROM workflows WHERE company_id = $1 LIMIT 1', [
      ids['Acme Agency'],
    ]);
    assert.equal(
      (await app.request('GET', `/api/Workflow/builder/${toBase64Id(w.builder_id)}`, { token: owner })).status,
      200,
    );
    assert.equal(
      (await app.request('GET', `/api/Workflow/builder/${w.builder_id}`, { token: owner })).status,
      404,
      'numeric is not a form this route takes',
    );
    assert.equal(
      (await app.request('GET', `/api/Workflow/builder/${toBase64Id(w.id + 100000)}`, { token: owner })).status,
      404,
    );
  });
});
