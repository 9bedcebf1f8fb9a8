import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toBase64Id } from '../src/kernel/ids.js';
import { startTestApp, type TestApp } from './helpers/app.js';

let app: TestApp;
let owner: string; // owner@acme.test
let supervisor: string; // lacks every role permission
let gamma: string; // another company

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  supervisor = await app.login('supervisor@acme.test');
  gamma = await app.login('owner@gamma.test');
});
after(() => app.close());

const roleRow = async (title: string, company = 'Acme Agency') =>
  (
    await app.sql(
      'SELECT r.* FROM roles r JOIN companies c ON c.id = r.company_id WHERE r.title = $1 AND c.name = $2',
      [title, company],
    )
  )[0];
const permissionIds = async (slugs: string[]) =>
  (await app.sql('SELECT id FROM permissions WHERE slug = ANY($1) ORDER BY id', [slugs])).map((r) => r.id as number);
const heldBy = async (roleId: number) =>
  (
    await app.sql(
      'SELECT p.slug FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id WHERE rp.role_id = $1 ORDER BY p.slug',
      [roleId],
    )
  ).map((r) => r.slug as string);
const createRole = async (title: string, permissions: number[] = []) => {
  const res = await app.request('POST', '/api/roles', { token: owner, body: { title, permissions } });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as number;
};

describe('GET /api/roles', () => {
  it('lists the company roles newest first in the paginated envelope', async () => {
    const res = await app.request('GET', '/api/roles', { token: owner });
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    const titles = res.body.data.records.map((r: any) => r.title);
    assert.deepEqual(titles.slice(-5), ['Auditor', 'Billing', 'Sales Agent', 'Supervisor', 'Owner']);
    assert.deepEqual(Object.keys(res.body.data.records[0]), ['id', 'title', 'created_at', 'updated_at']);
    assert.equal(typeof res.body.data.records[0].id, 'number');
    const { pagination } = res.body.data;
    assert.deepEqual(Object.keys(pagination), ['total', 'current_page', 'per_page', 'last_page', 'from', 'to']);
    assert.equal(pagination.per_page, 15);
    assert.equal(pagination.current_page, 1);
    assert.equal(pagination.total, titles.length);
    const companies = await app.sql('SELECT DISTINCT company_id FROM roles WHERE id = ANY($1)', [
      res.body.data.records.map((r: any) => r.id),
    ]);
    assert.equal(companies.length, 1, 'only the signed-in company');
  });

  it('searches titles case-insensitively', async () => {
    const res = await app.request('GET', '/api/roles?search=SUPER', { token: owner });
    assert.deepEqual(
      res.body.data.records.map((r: any) => r.title),
      ['Supervisor'],
    );
    const none = await app.request('GET', '/api/roles?search=%25', { token: owner });
    assert.equal(none.body.data.pagination.total, 0, 'a % in the search is a literal');
    assert.equal(none.body.data.pagination.from, null);
    assert.equal(none.body.data.pagination.to, null);
  });

  it('paginates, clamps per_page to 100 and gives an empty page past the end', async () => {
    for (let i = 0; i < 18; i++) await createRole(`Paging role ${String(i).padStart(2, '0')}`);
    const total = (
      await app.sql(
        "SELECT count(*)::int AS n FROM roles WHERE company_id = (SELECT id FROM companies WHERE name = 'Acme Agency')",
      )
    )[0].n;
    const page2 = await app.request('GET', '/api/roles?per_page=10&page=2', { token: owner });
    assert.equal(page2.body.data.records.length, 10);
    assert.deepEqual(page2.body.data.pagination, {
      total,
      current_page: 2,
      per_page: 10,
      last_page: Math.ceil(total / 10),
      from: 11,
      to: 20,
    });
    const clamped = await app.request('GET', '/api/roles?per_page=500', { token: owner });
    assert.equal(clamped.status, 200);
    assert.equal(clamped.body.data.pagination.per_page, 100);
    assert.equal(clamped.body.data.records.length, total);
    const beyond = await app.request('GET', '/api/roles?page=99', { token: owner });
    assert.deepEqual(beyond.body.data.records, []);
    assert.equal(beyond.body.data.pagination.total, total);
    assert.equal(beyond.body.data.pagination.from, null);
  });

  it('refuses bad paging values with 422', async () => {
    for (const [query, field] of [
      ['per_page=abc', 'per_page'],
      ['per_page=0', 'per_page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
    ]) {
      const res = await app.request('GET', `/api/roles?${query}`, { token: owner });
      assert.equal(res.status, 422, query);
      assert.deepEqual(Object.keys(res.body.errors), [field], query);
    }
  });

  it('requires a token (401) and view-role (403)', async () => {
    assert.equal((await app.request('GET', '/api/roles')).status, 401);
    const forbidden = await app.request('GET', '/api/roles', { token: supervisor });
    assert.equal(forbidden.status, 403);
    assert.deepEqual(forbidden.body, { success: false, message: 'This action is unauthorized.' });
  });

  it('answers the same through GraphQL', async () => {
    const rest = await app.request('GET', '/api/roles?per_page=3&search=a', { token: owner });
    const gql = await app.graphql(
      'query { roles(perPage: 3, search: "a") { records { id title createdAt updatedAt } pagination { total currentPage perPage lastPage from to } } }',
      {},
      owner,
    );
    const data = gql.body.data!.roles;
    assert.deepEqual(
      rest.body.data.records,
      data.records.map((r: any) => ({ id: r.id, title: r.title, created_at: r.createdAt, updated_at: r.updatedAt })),
    );
    assert.deepEqual(rest.body.data.pagination, {
      total: data.pagination.total,
      current_page: data.pagination.currentPage,
      per_page: data.pagination.perPage,
      last_page: data.pagination.lastPage,
      from: data.pagination.from,
      to: data.pagination.to,
    });
    const denied = await app.graphql('{ roles { records { id } } }', {}, supervisor);
    assert.equal(denied.body.errors![0].extensions.code, 'FORBIDDEN');
    assert.equal(denied.body.errors![0].extensions.http.status, 403);
  });
});

describe('POST /api/roles', () => {
  it('creates a role; titles are unique within the company, whatever their case', async () => {
    const res = await app.request('POST', '/api/roles', {
      token: owner,
      body: { title: 'Closers', permissions: await permissionIds(['view-pipelines']) },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.message, 'Role created successfully.');
    assert.equal(res.body.data.title, 'Closers');
    assert.deepEqual(await heldBy(res.body.data.id), ['view-pipelines']);
    const dup = await app.request('POST', '/api/roles', { token: owner, body: { title: 'closers' } });
    assert.equal(dup.status, 422);
    assert.deepEqual(dup.body.errors, { title: ['The title has already been taken.'] });
    const elsewhere = await app.request('POST', '/api/roles', { token: gamma, body: { title: 'Closers' } });
    assert.equal(elsewhere.status, 201, 'the same title in another company');
  });
});

describe('concurrent creation', () => {
  it('racing requests for one title create it once; the others are 422 or 409, never 500', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => app.request('POST', '/api/roles', { token: owner, body: { title: 'Race' } })),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.equal(statuses.filter((s) => s === 201).length, 1, statuses.join(','));
    assert.ok(
      statuses.every((s) => [201, 409, 422].includes(s)),
      statuses.join(','),
    );
    assert.equal((await app.sql("SELECT count(*)::int AS n FROM roles WHERE lower(title) = 'race'"))[0].n, 1);
  });

  it('six roles renamed to one title at once: one takes it, the others are told it is taken (422), never 500', async () => {
    const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => createRole(`Rename race ${i}`)));
    const results = await Promise.all(
      ids.map((id) => app.request('PUT', `/api/roles/${id}`, { token: owner, body: { title: 'Renamed race' } })),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 422, 422, 422, 422, 422]);
    for (const refused of results.filter((r) => r.status === 422))
      assert.deepEqual(refused.body.errors, { title: ['The title has already been taken.'] });
    assert.equal((await app.sql("SELECT count(*)::int AS n FROM roles WHERE title = 'Renamed race'"))[0].n, 1);
  });
});

describe('PUT /api/roles/{id}', () => {
  it('renames through both paths and every id form', async () => {
    const id = await createRole('Rename me');
    const forms: Array<[string, string]> = [
      ['/api/roles/', String(id)],
      ['/api/roles/update/', toBase64Id(id)],
      ['/api/roles/', app.running.services.ids.encrypt('role', id)],
    ];
    for (const [prefix, raw] of forms) {
      const title = `Renamed ${raw.slice(0, 6)}`;
      const res = await app.request('PUT', `${prefix}${encodeURIComponent(raw)}`, { token: owner, body: { title } });
      assert.equal(res.status, 200, `${prefix}${raw}: ${res.text}`);
      assert.deepEqual(res.body, { success: true, message: 'Role updated successfully.' });
      assert.equal((await app.sql('SELECT title FROM roles WHERE id = $1', [id]))[0].title, title);
    }
  });

  it('answers 404 for another company, an unknown, a malformed or a wrong-type id, and changes nothing', async () => {
    const gammaRole = await roleRow('Sales Rep', 'Gamma Solar');
    const ids = [
      String(gammaRole.id),
      toBase64Id(gammaRole.id),
      app.running.services.ids.encrypt('role', gammaRole.id),
      '999999',
      'abc!',
      'MQ',
      app.running.services.ids.encrypt('phone_number', gammaRole.id),
    ];
    for (const raw of ids) {
      const res = await app.request('PUT', `/api/roles/${encodeURIComponent(raw)}`, {
        token: owner,
        body: { title: 'Hijacked' },
      });
      assert.equal(res.status, 404, raw);
      assert.deepEqual(res.body, { success: false, message: 'Role not found.' }, raw);
    }
    assert.equal((await roleRow('Sales Rep', 'Gamma Solar')).title, 'Sales Rep');
    assert.equal(await roleRow('Hijacked', 'Gamma Solar'), undefined);
  });

  it('validates the title', async () => {
    const id = await createRole('Validate me');
    const cases: Array<[unknown, string]> = [
      [{}, 'The title field is required.'],
      [{ title: '' }, 'The title field is required.'],
      [{ title: 7 }, 'The title field must be a string.'],
      [{ title: 'x'.repeat(256) }, 'The title field must not be greater than 255 characters.'],
      [{ title: 'Supervisor' }, 'The title has already been taken.'],
    ];
    for (const [body, message] of cases) {
      const res = await app.request('PUT', `/api/roles/${id}`, { token: owner, body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(res.body.errors, { title: [message] });
    }
    assert.equal((await app.sql('SELECT title FROM roles WHERE id = $1', [id]))[0].title, 'Validate me');
    const exactly255 = await app.request('PUT', `/api/roles/${id}`, { token: owner, body: { title: 'y'.repeat(255) } });
    assert.equal(exactly255.status, 200);
  });

  it('requires edit-role and refuses the Owner role', async () => {
    const id = await createRole('Guarded');
    const res = await app.request('PUT', `/api/roles/${id}`, { token: supervisor, body: { title: 'Nope' } });
    assert.equal(res.status, 403);
    const ownerRole = await roleRow('Owner');
    const conflict = await app.request('PUT', `/api/roles/${ownerRole.id}`, { token: owner, body: { title: 'Boss' } });
    assert.equal(conflict.status, 409);
    assert.equal((await roleRow('Owner')).title, 'Owner');
  });

  it('answers in one order however many checks fail: 404, then the title (422), then the Owner role (409)', async () => {
    const rename = async (id: number, title: string) => {
      const res = await app.graphql(
        'mutation($id: ID!, $title: String!) { updateRole(id: $id, input: { title: $title }) { id } }',
        { id: String(id), title },
        owner,
      );
      return [res.body.errors?.[0]?.extensions?.http?.status, res.body.errors?.[0]?.extensions?.errors] as const;
    };
    const [theirs] = await app.sql(
      "SELECT r.id FROM roles r JOIN companies c ON c.id = r.company_id WHERE c.name <> 'Acme Agency' LIMIT 1",
    );
    const ownerRole = await roleRow('Owner');
    assert.deepEqual(await rename(theirs.id, ''), [404, undefined], "another company's role, whatever the title");
    assert.deepEqual(await rename(ownerRole.id, ''), [422, { title: ['The title field is required.'] }]);
    assert.deepEqual(await rename(ownerRole.id, 'Supervisor'), [422, { title: ['The title has already been taken.'] }]);
    assert.deepEqual(await rename(ownerRole.id, 'Boss'), [409, undefined]);
    assert.equal((await roleRow('Owner')).title, 'Owner');
  });
});

describe('PUT|POST /api/roles/{id}/permissions', () => {
  it('replaces the permissions (PUT), renames in the same request, and an empty array clears (POST)', async () => {
    const id = await createRole('Perms', await permissionIds(['view-workflows']));
    const wanted = await permissionIds(['view-role', 'edit-role']);
    const res = await app.request('PUT', `/api/roles/${toBase64Id(id)}/permissions`, {
      token: owner,
      body: { permissions: wanted, title: 'Perms renamed' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { success: true, message: 'Role permissions updated successfully.' });
    assert.deepEqual(await heldBy(id), ['edit-role', 'view-role']);
    assert.equal((await app.sql('SELECT title FROM roles WHERE id = $1', [id]))[0].title, 'Perms renamed');
    const cleared = await app.request('POST', `/api/roles/${id}/permissions`, {
      token: owner,
      body: { permissions: [] },
    });
    assert.equal(cleared.status, 200);
    assert.deepEqual(await heldBy(id), []);
  });

  it('takes the modules body with permissions or permission_ids', async () => {
    const id = await createRole('By module');
    const [rolesModule] = await app.sql("SELECT id FROM modules WHERE slug = 'roles'");
    const [pipesModule] = await app.sql("SELECT id FROM modules WHERE slug = 'pipelines'");
    const body = {
      modules: [
        { module_id: rolesModule.id, permissions: await permissionIds(['view-role']) },
        { module_id: pipesModule.id, permission_ids: await permissionIds(['view-pipelines', 'edit-pipelines']) },
      ],
    };
    const res = await app.request('PUT', `/api/roles/${id}/permissions`, { token: owner, body });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await heldBy(id), ['edit-pipelines', 'view-pipelines', 'view-role']);
  });

  it('refuses unknown permission ids, a permission under the wrong module, and a missing body, changing nothing', async () => {
    const id = await createRole('Unchanged', await permissionIds(['view-webhooks']));
    const [rolesModule] = await app.sql("SELECT id FROM modules WHERE slug = 'roles'");
    const cases: Array<[unknown, string]> = [
      [{ permissions: [999999] }, 'permissions.0'],
      [{ permissions: ['x'] }, 'permissions.0'],
      [{ permissions: 'view-role' }, 'permissions'],
      [
        { modules: [{ module_id: rolesModule.id, permissions: await permissionIds(['view-pipelines']) }] },
        'modules.0.permissions.0',
      ],
      [{ modules: [{ permissions: [] }] }, 'modules.0.module_id'],
      [{}, 'permissions'],
      [{ permissions: await permissionIds(['view-role']), title: 'Supervisor' }, 'title'],
    ];
    for (const [body, field] of cases) {
      const res = await app.request('PUT', `/api/roles/${id}/permissions`, { token: owner, body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.ok(field in res.body.errors, `${JSON.stringify(body)} -> ${res.text}`);
    }
    assert.deepEqual(await heldBy(id), ['view-webhooks']);
    assert.equal((await app.sql('SELECT title FROM roles WHERE id = $1', [id]))[0].title, 'Unchanged');
  });

  it('requires assign-role-permission, scopes by company, and keeps the Owner role whole', async () => {
    const id = await createRole('Scoped');
    assert.equal(
      (await app.request('PUT', `/api/roles/${id}/permissions`, { token: supervisor, body: { permissions: [] } }))
        .status,
      403,
    );
    assert.equal(
      (await app.request('PUT', `/api/roles/${id}/permissions`, { token: gamma, body: { permissions: [] } })).status,
      404,
    );
    const ownerRole = await roleRow('Owner');
    const before = await heldBy(ownerRole.id);
    const res = await app.request('PUT', `/api/roles/${ownerRole.id}/permissions`, {
      token: owner,
      body: { permissions: [] },
    });
    assert.equal(res.status, 409);
    assert.deepEqual(await heldBy(ownerRole.id), before);
  });
});

describe('GET /api/roles/{id}/permissions', () => {
  it('lists every module with its permissions, marked as held or not', async () => {
    const id = await createRole('Grouped', await permissionIds(['view-role', 'view-pipelines']));
    const res = await app.request('GET', `/api/roles/${id}/permissions`, { token: owner });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.role.title, 'Grouped');
    const modules = res.body.data.modules;
    const slugs = modules.map((m: any) => m.slug);
    for (const area of [
      'phone-numbers',
      'spam-protection',
      'ai-dashboard',
      'pipelines',
      'roles',
      'workflows',
      'webhooks',
    ]) {
      assert.ok(slugs.includes(area), `module ${area}`);
    }
    const granted = modules
      .flatMap((m: any) => m.permissions.filter((p: any) => p.granted).map((p: any) => p.slug))
      .sort();
    assert.deepEqual(granted, ['view-pipelines', 'view-role']);
    const roles = modules.find((m: any) => m.slug === 'roles');
    assert.equal(typeof roles.module_id, 'number');
    assert.deepEqual(
      roles.permissions.map((p: any) => p.slug),
      ['view-role', 'edit-role', 'assign-role-permission', 'delete-role'],
    );
    assert.equal((await app.request('GET', `/api/roles/${id}/permissions`, { token: gamma })).status, 404);
    assert.equal((await app.request('GET', `/api/roles/${id}/permissions`, { token: supervisor })).status, 403);
  });
});

describe('DELETE /api/roles/{id}', () => {
  it('deletes through both paths', async () => {
    const first = await createRole('Delete me 1');
    const second = await createRole('Delete me 2');
    const a = await app.request('DELETE', `/api/roles/${first}`, { token: owner });
    assert.equal(a.status, 200);
    assert.deepEqual(a.body, { success: true, message: 'Role deleted successfully.' });
    const b = await app.request('DELETE', `/api/roles/delete/${app.running.services.ids.encrypt('role', second)}`, {
      token: owner,
    });
    assert.equal(b.status, 200);
    assert.equal((await app.sql('SELECT count(*)::int AS n FROM roles WHERE id IN ($1, $2)', [first, second]))[0].n, 0);
    assert.equal((await app.request('DELETE', `/api/roles/${first}`, { token: owner })).status, 404, 'already gone');
  });

  it('refuses a role still assigned to users (409), the Owner role (409), another company (404), without delete-role (403)', async () => {
    const supervisorRole = await roleRow('Supervisor');
    const assigned = await app.request('DELETE', `/api/roles/${supervisorRole.id}`, { token: owner });
    assert.equal(assigned.status, 409);
    assert.deepEqual(assigned.body, {
      success: false,
      message: 'The role is assigned to users and cannot be deleted.',
    });
    assert.equal(
      (await app.request('DELETE', `/api/roles/${(await roleRow('Owner')).id}`, { token: owner })).status,
      409,
    );
    const gammaRole = await roleRow('Sales Rep', 'Gamma Solar');
    assert.equal((await app.request('DELETE', `/api/roles/${gammaRole.id}`, { token: owner })).status, 404);
    const id = await createRole('Supervisor cannot');
    assert.equal((await app.request('DELETE', `/api/roles/${id}`, { token: supervisor })).status, 403);
    assert.ok(await roleRow('Supervisor'));
    assert.ok(await roleRow('Sales Rep', 'Gamma Solar'));
    assert.ok(await roleRow('Supervisor cannot'));
  });
});
