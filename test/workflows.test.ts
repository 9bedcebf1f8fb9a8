import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toBase64Id } from '../src/kernel/ids.js';
import { startTestApp, type TestApp } from './helpers/app.js';

let app: TestApp;
let owner: string;
let gamma: string;

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  gamma = await app.login('owner@gamma.test');
});
after(() => app.close());

const workflow = async (id: number) => (await app.sql('SELECT * FROM workflows WHERE id = $1', [id]))[0];
const idNamed = async (table: string, name: string, company = 'Acme Agency') =>
  (
    await app.sql(
      `SELECT t.id FROM ${table} t JOIN companies c ON c.id = t.company_id WHERE t.name = $1 AND c.name = $2`,
      [name, company],
    )
  )[0].id as number;
const folderOrder = async (company = 'Acme Agency') =>
  (
    await app.sql(
      'SELECT f.name FROM workflow_folders f JOIN companies c ON c.id = f.company_id WHERE c.name = $1 ORDER BY sort_order',
      [company],
    )
  ).map((r) => r.name as string);
const decode = (base64: string) => Number(Buffer.from(base64, 'base64').toString());

const validGraph = {
  nodes: [
    { id: 'start', kind: 'trigger', type: 'appointment.scheduled', config: {} },
    { id: 'text', kind: 'action', type: 'send_sms', config: { message: 'See you soon' } },
  ],
  edges: [{ from: 'start', to: 'text' }],
};

describe('POST /api/Workflow/create', () => {
  it('creates a draft from an empty body with a generated name, unique in the company', async () => {
    const first = await app.request('POST', '/api/Workflow/create', { token: owner, body: {} });
    assert.equal(first.status, 200);
    assert.equal(first.body.success, true);
    assert.deepEqual(Object.keys(first.body.data), ['id', 'builder_id', 'status', 'builder_endpoint']);
    assert.equal(first.body.data.status, 'draft');
    assert.equal(first.body.data.builder_endpoint, `/api/Workflow/builder/${first.body.data.builder_id}`);
    const row = await workflow(decode(first.body.data.id));
    assert.equal(row.name, 'Untitled workflow');
    assert.equal(toBase64Id(row.builder_id), first.body.data.builder_id);
    const second = await app.request('POST', '/api/Workflow/create', { token: owner });
    assert.equal((await workflow(decode(second.body.data.id))).name, 'Untitled workflow 2');
    const elsewhere = await app.request('POST', '/api/Workflow/create', { token: gamma, body: {} });
    assert.equal((await workflow(decode(elsewhere.body.data.id))).name, 'Untitled workflow', 'unique per company');
  });

  it('stores name, description and a valid graph', async () => {
    const res = await app.request('POST', '/api/Workflow/create', {
      token: owner,
      body: { name: 'Reminder', description: 'Texts before visits', trigger_config: validGraph },
    });
    assert.equal(res.status, 200);
    const row = await workflow(decode(res.body.data.id));
    assert.equal(row.name, 'Reminder');
    assert.equal(row.description, 'Texts before visits');
    assert.deepEqual(row.trigger_config, validGraph);
    assert.equal(row.status, 'draft');
  });

  it('refuses a bad graph with 422 naming the node, and a long name, creating nothing', async () => {
    const before = (await app.sql('SELECT count(*)::int AS n FROM workflows'))[0].n;
    const badGraph = {
      nodes: [validGraph.nodes[0], { id: 'text', kind: 'action', type: 'send_fax', config: {} }],
      edges: [],
    };
    const res = await app.request('POST', '/api/Workflow/create', {
      token: owner,
      body: { name: 'Bad', trigger_config: badGraph },
    });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.errors, {
      'trigger_config.nodes.1.type': ['Node "text" (send_fax): send_fax is not in the action catalog.'],
    });
    const long = await app.request('POST', '/api/Workflow/create', { token: owner, body: { name: 'x'.repeat(256) } });
    assert.equal(long.status, 422);
    assert.deepEqual(Object.keys(long.body.errors), ['name']);
    const notObject = await app.request('POST', '/api/Workflow/create', {
      token: owner,
      body: { trigger_config: 'nodes' },
    });
    assert.equal(notObject.status, 422);
    assert.deepEqual(Object.keys(notObject.body.errors), ['trigger_config']);
    assert.equal((await app.sql('SELECT count(*)::int AS n FROM workflows'))[0].n, before);
  });
});

describe('PUT /api/Workflow/{id}/status', () => {
  it('sets only the status and returns the workflow', async () => {
    const id = await idNamed('workflows', 'No-show follow-up');
    const before = await workflow(id);
    const res = await app.request('PUT', `/api/Workflow/${toBase64Id(id)}/status`, {
      token: owner,
      body: { status: 'active', name: 'Renamed?' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.message, 'Workflow status updated successfully.');
    assert.equal(res.body.data.status, 'active');
    assert.equal(res.body.data.id, toBase64Id(id));
    assert.equal(res.body.data.name, 'No-show follow-up');
    const after = await workflow(id);
    assert.equal(after.status, 'active');
    assert.equal(after.name, before.name);
    assert.deepEqual(after.trigger_config, before.trigger_config);
    assert.equal(after.folder_id, before.folder_id);
  });

  it('validates the status and the id', async () => {
    const id = await idNamed('workflows', 'Holiday promo');
    for (const body of [{}, { status: 'paused' }, { status: 1 }]) {
      const res = await app.request('PUT', `/api/Workflow/${toBase64Id(id)}/status`, { token: owner, body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(Object.keys(res.body.errors), ['status']);
    }
    const foreign = await idNamed('workflows', 'Holiday promo', 'Gamma Solar');
    for (const raw of [
      String(id),
      app.running.services.ids.encrypt('workflow', id),
      toBase64Id(foreign),
      toBase64Id(0),
      'zz',
    ]) {
      const res = await app.request('PUT', `/api/Workflow/${encodeURIComponent(raw)}/status`, {
        token: owner,
        body: { status: 'active' },
      });
      assert.equal(res.status, 404, raw);
      assert.deepEqual(res.body, { success: false, message: 'Workflow not found.' });
    }
    assert.equal((await workflow(id)).status, 'inactive');
    assert.equal((await workflow(foreign)).status, 'inactive');
  });
});

describe('PUT /api/Workflow/folder/move-to-folder/{id}', () => {
  it('moves into a folder and out with the base64 of 0', async () => {
    const id = await idNamed('workflows', 'Uncategorized draft');
    const folder = await idNamed('workflow_folders', 'Archive');
    const res = await app.request('PUT', `/api/Workflow/folder/move-to-folder/${toBase64Id(id)}`, {
      token: owner,
      body: { folder_id: toBase64Id(folder) },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, message: 'Workflow moved successfully' });
    assert.equal((await workflow(id)).folder_id, folder);
    const out = await app.request('PUT', `/api/Workflow/folder/move-to-folder/${toBase64Id(id)}`, {
      token: owner,
      body: { folder_id: 'MA==' },
    });
    assert.equal(out.status, 200);
    assert.equal((await workflow(id)).folder_id, null);
  });

  it("refuses another company's folder or workflow (404) and a missing folder_id (422)", async () => {
    const id = await idNamed('workflows', 'Appointment reminder');
    const before = (await workflow(id)).folder_id;
    const foreignFolder = await idNamed('workflow_folders', 'Archive', 'Gamma Solar');
    const res = await app.request('PUT', `/api/Workflow/folder/move-to-folder/${toBase64Id(id)}`, {
      token: owner,
      body: { folder_id: toBase64Id(foreignFolder) },
    });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { success: false, message: 'Folder not found.' });
    const bogus = await app.request('PUT', `/api/Workflow/folder/move-to-folder/${toBase64Id(id)}`, {
      token: owner,
      body: { folder_id: 'nope!' },
    });
    assert.equal(bogus.status, 404);
    const foreignWorkflow = await idNamed('workflows', 'Appointment reminder', 'Gamma Solar');
    const other = await app.request('PUT', `/api/Workflow/folder/move-to-folder/${toBase64Id(foreignWorkflow)}`, {
      token: owner,
      body: { folder_id: 'MA==' },
    });
    assert.equal(other.status, 404);
    assert.notEqual((await workflow(foreignWorkflow)).folder_id, null);
    const missing = await app.request('PUT', `/api/Workflow/folder/move-to-folder/${toBase64Id(id)}`, {
      token: owner,
      body: {},
    });
    assert.equal(missing.status, 422);
    assert.equal((await workflow(id)).folder_id, before);
  });
});

describe('POST /api/Workflow/folder/reorder', () => {
  it('puts the listed folders first in order, base64 or numeric ids', async () => {
    const archive = await idNamed('workflow_folders', 'Archive');
    const leads = await idNamed('workflow_folders', 'Lead follow-up');
    const res = await app.request('POST', '/api/Workflow/folder/reorder', {
      token: owner,
      body: { folder_ids: [toBase64Id(archive), String(leads)] },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, message: 'Folders reordered successfully' });
    assert.deepEqual(await folderOrder(), ['Archive', 'Lead follow-up', 'Appointments']);
    const sorts = (
      await app.sql(
        'SELECT sort_order FROM workflow_folders WHERE company_id = (SELECT id FROM companies WHERE name = $1) ORDER BY sort_order',
        ['Acme Agency'],
      )
    ).map((r) => r.sort_order);
    assert.deepEqual(sorts, [1, 2, 3]);
  });

  it('is atomic: one bad, foreign or repeated id changes nothing', async () => {
    const before = await folderOrder();
    const appointments = await idNamed('workflow_folders', 'Appointments');
    const foreign = await idNamed('workflow_folders', 'Archive', 'Gamma Solar');
    const cases: Array<[unknown, string]> = [
      [{ folder_ids: [toBase64Id(appointments), toBase64Id(foreign)] }, 'folder_ids.1'],
      [{ folder_ids: [toBase64Id(appointments), 'garbage!'] }, 'folder_ids.1'],
      [{ folder_ids: [toBase64Id(appointments), String(appointments)] }, 'folder_ids.1'],
      [{ folder_ids: [] }, 'folder_ids'],
      [{ folder_ids: 'x' }, 'folder_ids'],
      [{}, 'folder_ids'],
    ];
    for (const [body, field] of cases) {
      const res = await app.request('POST', '/api/Workflow/folder/reorder', { token: owner, body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.ok(field in res.body.errors, `${JSON.stringify(body)}: ${res.text}`);
    }
    assert.deepEqual(await folderOrder(), before);
    assert.deepEqual(await folderOrder('Gamma Solar'), ['Lead follow-up', 'Appointments', 'Archive']);
  });
});

describe('lists, folders, builder and catalogs', () => {
  it('lists workflows by folder (MA== for none), status and search', async () => {
    const leads = await idNamed('workflow_folders', 'Lead follow-up');
    const names = async (query: string) =>
      (await app.request('GET', `/api/Workflow${query}`, { token: owner })).body.data.records
        .map((r: any) => r.name)
        .sort();
    assert.deepEqual(await names(`?folder_id=${encodeURIComponent(toBase64Id(leads))}`), [
      'Missed call text-back',
      'New lead welcome',
      'Old lead revival',
    ]);
    assert.ok((await names('?folder_id=MA%3D%3D')).includes('Untitled workflow'));
    assert.deepEqual(await names(`?folder_id=${encodeURIComponent(toBase64Id(leads))}&status=inactive`), [
      'Old lead revival',
    ]);
    assert.deepEqual(await names('?search=MISSED'), ['Missed call text-back']);
    assert.equal((await app.request('GET', '/api/Workflow?status=paused', { token: owner })).status, 422);
    const foreign = await idNamed('workflow_folders', 'Archive', 'Gamma Solar');
    assert.equal(
      (await app.request('GET', `/api/Workflow?folder_id=${encodeURIComponent(toBase64Id(foreign))}`, { token: owner }))
        .status,
      404,
    );
  });

  it('creates a folder at the end and lists folders with counts', async () => {
    const created = await app.request('POST', '/api/Workflow/folder', { token: owner, body: { name: 'Surveys' } });
    assert.equal(created.status, 201);
    assert.equal(created.body.data.sort_order, 4);
    const res = await app.request('GET', '/api/Workflow/folder', { token: owner });
    assert.deepEqual(
      res.body.data.map((f: any) => f.name),
      [...(await folderOrder())],
    );
    assert.equal(res.body.data.at(-1).name, 'Surveys');
    assert.equal(res.body.data.at(-1).workflows_count, 0);
    assert.equal((await app.request('POST', '/api/Workflow/folder', { token: owner, body: {} })).status, 422);
  });

  it('reads and saves the builder graph by builder id', async () => {
    const created = await app.request('POST', '/api/Workflow/create', { token: owner, body: { name: 'Built' } });
    const endpoint = created.body.data.builder_endpoint;
    const read = await app.request('GET', endpoint, { token: owner });
    assert.equal(read.status, 200);
    assert.equal(read.body.data.name, 'Built');
    assert.equal(read.body.data.trigger_config, null);
    const saved = await app.request('PUT', endpoint, { token: owner, body: { trigger_config: validGraph } });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(saved.body.data.trigger_config, validGraph);
    const cyclic = {
      ...validGraph,
      edges: [
        { from: 'start', to: 'text' },
        { from: 'text', to: 'text' },
      ],
    };
    const refused = await app.request('PUT', endpoint, { token: owner, body: { trigger_config: cyclic } });
    assert.equal(refused.status, 422);
    assert.match(refused.body.errors['trigger_config.edges'][0], /Node "text" is part of a cycle/);
    assert.deepEqual((await app.request('GET', endpoint, { token: owner })).body.data.trigger_config, validGraph);
    assert.equal((await app.request('GET', endpoint, { token: gamma })).status, 404);
  });

  it('serves the trigger and action catalogs', async () => {
    const triggers = await app.request('GET', '/api/Workflow/catalog/triggers', { token: owner });
    assert.equal(triggers.body.data.length, 25);
    assert.ok(triggers.body.data.some((t: any) => t.type === 'sms.replied'));
    const actions = await app.request('GET', '/api/Workflow/catalog/actions', { token: owner });
    const wait = actions.body.data.find((a: any) => a.type === 'wait');
    assert.deepEqual(wait.config.unit, { type: 'string', required: true, enum: ['minutes', 'hours', 'days'] });
  });

  it('GraphQL gives the same workflow as REST', async () => {
    const id = toBase64Id(await idNamed('workflows', 'New lead welcome'));
    const rest = await app.request('PUT', `/api/Workflow/${id}/status`, { token: owner, body: { status: 'active' } });
    const gql = await app.graphql(
      'mutation($id: ID!) { updateWorkflowStatus(id: $id, status: active) { id builderId name status builderEndpoint folderId } }',
      { id },
      owner,
    );
    const w = gql.body.data.updateWorkflowStatus;
    assert.deepEqual(
      {
        id: w.id,
        builder_id: w.builderId,
        name: w.name,
        status: w.status,
        builder_endpoint: w.builderEndpoint,
        folder_id: w.folderId,
      },
      {
        id: rest.body.data.id,
        builder_id: rest.body.data.builder_id,
        name: rest.body.data.name,
        status: rest.body.data.status,
        builder_endpoint: rest.body.data.builder_endpoint,
        folder_id: rest.body.data.folder_id,
      },
    );
  });
});
