import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toBase64Id } from '../src/kernel/ids.js';
import { startTestApp, type TestApp } from './helpers/app.js';

let app: TestApp;
let owner: string;
let gamma: string;
let acmeId: number;

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  gamma = await app.login('owner@gamma.test');
  acmeId = (await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'"))[0].id;
});
after(() => app.close());

const pipelineId = async (name: string, company = 'Acme Agency') =>
  (
    await app.sql(
      'SELECT p.id FROM pipelines p JOIN companies c ON c.id = p.company_id WHERE p.name = $1 AND c.name = $2',
      [name, company],
    )
  )[0].id as number;
const stageNames = async (id: number) =>
  (await app.sql('SELECT name FROM pipeline_stages WHERE pipeline_id = $1 ORDER BY position', [id])).map(
    (r) => r.name as string,
  );

describe('GET /api/pipeline', () => {
  it('lists the company pipelines by name with stage counts and CRM links', async () => {
    const res = await app.request('GET', '/api/pipeline', { token: owner });
    assert.equal(res.status, 200);
    const records = res.body.data.records;
    assert.deepEqual(
      records.map((r: any) => r.name),
      ['Inbound Leads', 'Outbound Campaign', 'Renewals'],
    );
    const inbound = records[0];
    assert.deepEqual(Object.keys(inbound), ['id', 'name', 'stages_count', 'linked_to_crm', 'crm_location_id']);
    assert.equal(inbound.id, toBase64Id(await pipelineId('Inbound Leads')));
    assert.equal(inbound.stages_count, 5);
    assert.equal(inbound.linked_to_crm, true);
    assert.equal(inbound.crm_location_id, 'loc-main-office-acme');
    assert.equal(records[1].linked_to_crm, false);
    assert.equal(records[1].crm_location_id, null);
    assert.equal(res.body.data.pagination.per_page, 15);
  });

  it('filters by crm_location_id: all, unsynced, a location', async () => {
    const names = async (query: string) =>
      (await app.request('GET', `/api/pipeline${query}`, { token: owner })).body.data.records.map((r: any) => r.name);
    assert.deepEqual(await names('?crm_location_id=all'), ['Inbound Leads', 'Outbound Campaign', 'Renewals']);
    assert.deepEqual(await names('?crm_location_id=unsynced'), ['Outbound Campaign', 'Renewals']);
    assert.deepEqual(await names('?crm_location_id=loc-main-office-acme'), ['Inbound Leads']);
    assert.deepEqual(
      await names('?crm_location_id=loc-main-office-gamma'),
      [],
      "another company's location shows nothing",
    );
  });

  it('clamps per_page to 30 and paginates', async () => {
    for (let i = 0; i < 30; i++) {
      await app.sql('INSERT INTO pipelines (company_id, name, created_at, updated_at) VALUES ($1, $2, now(), now())', [
        acmeId,
        `Zeta ${String(i).padStart(2, '0')}`,
      ]);
    }
    const clamped = await app.request('GET', '/api/pipeline?per_page=100', { token: owner });
    assert.equal(clamped.body.data.pagination.per_page, 30);
    assert.equal(clamped.body.data.records.length, 30);
    assert.equal(clamped.body.data.pagination.total, 33);
    assert.equal(clamped.body.data.pagination.last_page, 2);
    const page2 = await app.request('GET', '/api/pipeline?per_page=30&page=2', { token: owner });
    assert.deepEqual(
      page2.body.data.records.map((r: any) => r.name),
      ['Zeta 27', 'Zeta 28', 'Zeta 29'],
    );
    assert.deepEqual([page2.body.data.pagination.from, page2.body.data.pagination.to], [31, 33]);
    assert.equal((await app.request('GET', '/api/pipeline?per_page=x', { token: owner })).status, 422);
  });

  it('requires a token', async () => {
    assert.equal((await app.request('GET', '/api/pipeline')).status, 401);
  });
});

describe('POST /api/pipeline/{id}/stages', () => {
  it('adds the stage at the end and answers the spec body', async () => {
    const id = await pipelineId('Renewals');
    const res = await app.request('POST', `/api/pipeline/${toBase64Id(id)}/stages`, {
      token: owner,
      body: { stage_name: 'Churned' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    assert.equal(res.body.message, 'Stage added successfully.');
    assert.deepEqual(Object.keys(res.body.data), ['id', 'stage_name', 'pipeline_id']);
    assert.equal(res.body.data.stage_name, 'Churned');
    assert.equal(res.body.data.pipeline_id, toBase64Id(id));
    const [stage] = await app.sql('SELECT id, position FROM pipeline_stages WHERE name = $1 AND pipeline_id = $2', [
      'Churned',
      id,
    ]);
    assert.equal(res.body.data.id, toBase64Id(stage.id));
    assert.deepEqual(await stageNames(id), ['Due', 'Reminded', 'Renewed', 'Churned']);
    assert.equal(stage.position, 4);
  });

  it('takes only the base64 id: numeric, encrypted, malformed, unknown and foreign ids are 404', async () => {
    const id = await pipelineId('Renewals');
    const foreign = await pipelineId('Renewals', 'Gamma Solar');
    const before = await stageNames(foreign);
    for (const raw of [
      String(id),
      app.running.services.ids.encrypt('pipeline', id),
      'not base64!',
      toBase64Id(999999),
      toBase64Id(foreign),
    ]) {
      const res = await app.request('POST', `/api/pipeline/${encodeURIComponent(raw)}/stages`, {
        token: owner,
        body: { stage_name: 'X' },
      });
      assert.equal(res.status, 404, raw);
      assert.deepEqual(res.body, { success: false, message: 'Pipeline not found.' });
    }
    assert.deepEqual(await stageNames(foreign), before);
  });

  it('validates stage_name', async () => {
    const id = toBase64Id(await pipelineId('Outbound Campaign'));
    for (const [body, text] of [
      [{}, 'The stage name field is required.'],
      [{ stage_name: '  ' }, 'The stage name field is required.'],
      [{ stage_name: 5 }, 'The stage name field must be a string.'],
      [{ stage_name: 'x'.repeat(256) }, 'The stage name field must not be greater than 255 characters.'],
    ] as const) {
      const res = await app.request('POST', `/api/pipeline/${id}/stages`, { token: owner, body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(res.body.errors, { stage_name: [text] });
    }
    assert.deepEqual(await stageNames(await pipelineId('Outbound Campaign')), [
      'Queued',
      'Called',
      'Callback',
      'Booked',
    ]);
  });

  it('is the addPipelineStage mutation in GraphQL', async () => {
    const id = toBase64Id(await pipelineId('Inbound Leads'));
    const res = await app.graphql(
      'mutation($id: ID!) { addPipelineStage(pipelineId: $id, stageName: "Onboarded") { id stageName pipelineId position } }',
      { id },
      owner,
    );
    assert.equal(res.body.data.addPipelineStage.stageName, 'Onboarded');
    assert.equal(res.body.data.addPipelineStage.position, 6);
    assert.equal(res.body.data.addPipelineStage.pipelineId, id);
  });
});

describe('create pipeline, stages, locations', () => {
  it('creates a pipeline (201) and lists its stages in order', async () => {
    const res = await app.request('POST', '/api/pipeline', {
      token: owner,
      body: { name: 'Enterprise', crm_location_id: 'loc-east' },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.linked_to_crm, true);
    assert.equal(res.body.data.stages_count, 0);
    for (const name of ['Discovery', 'Proposal']) {
      await app.request('POST', `/api/pipeline/${res.body.data.id}/stages`, {
        token: owner,
        body: { stage_name: name },
      });
    }
    const stages = await app.request('GET', `/api/pipeline/${res.body.data.id}/stages`, { token: owner });
    assert.equal(stages.status, 200);
    assert.deepEqual(
      stages.body.data.map((s: any) => [s.stage_name, s.position, s.pipeline_id]),
      [
        ['Discovery', 1, res.body.data.id],
        ['Proposal', 2, res.body.data.id],
      ],
    );
    assert.equal((await app.request('GET', `/api/pipeline/${res.body.data.id}/stages`, { token: gamma })).status, 404);
    const bad = await app.request('POST', '/api/pipeline', { token: owner, body: { name: '' } });
    assert.equal(bad.status, 422);
  });

  it('lists CRM locations with their pipeline counts', async () => {
    const res = await app.request('GET', '/api/pipeline/locations', { token: owner });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, [
      { crm_location_id: 'loc-east', pipelines_count: 1 },
      { crm_location_id: 'loc-main-office-acme', pipelines_count: 1 },
    ]);
  });

  it('new routes require their permission', async () => {
    const sales = (await app.sql("SELECT id FROM roles WHERE title = 'Billing'"))[0].id;
    const token = await app.login('supervisor@acme.test');
    await app.sql(
      "DELETE FROM role_permissions WHERE role_id = (SELECT id FROM roles WHERE title = 'Supervisor' AND " +
        "company_id = $1) AND permission_id IN (SELECT id FROM permissions WHERE slug IN ('view-pipelines', 'edit-pipelines'))",
      [acmeId],
    );
    assert.ok(sales);
    assert.equal((await app.request('GET', '/api/pipeline/locations', { token })).status, 403);
    assert.equal((await app.request('POST', '/api/pipeline', { token, body: { name: 'No' } })).status, 403);
    assert.equal(
      (await app.request('GET', '/api/pipeline', { token })).status,
      200,
      'the spec states no permission for the list',
    );
  });
});
