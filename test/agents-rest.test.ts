import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toBase64Id } from '../src/kernel/ids.js';
import { demoAccountSid, demoAuthToken } from '../src/telco/inventory.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// AI agents and the provider account over REST, each answer checked against
// the GraphQL operation the row runs.

let app: TestApp;
let owner: string;

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
});
after(() => app.close());

const api = (method: string, path: string, body?: unknown, token = owner) => app.request(method, path, { token, body });

describe('AI agents over REST', () => {
  it('lists the same agents as GraphQL, with the spec envelope', async () => {
    const rest = await api('GET', '/api/agents?per_page=5&active=true&search=a');
    assert.equal(rest.status, 200);
    const gql = await app.graphql(
      '{ agents(perPage: 5, active: true, search: "a") { records { id encryptedId name active online } pagination { total } } }',
      {},
      owner,
    );
    const ids = app.running.services.ids;
    assert.deepEqual(
      rest.body.data.records.map((a: any) => [a.id, a.name, a.active, a.online]),
      gql.body.data.agents.records.map((a: any) => [a.id, a.name, a.active, a.online]),
    );
    for (const agent of rest.body.data.records)
      assert.equal(ids.decode(agent.encrypted_id, 'agent'), Number(agent.id), 'the encrypted id opens to the agent');
    assert.equal(rest.body.data.pagination.total, gql.body.data.agents.pagination.total);
  });

  it('creates, renames, deactivates and switches online, by every id form', async () => {
    const created = await api('POST', '/api/agents', { name: 'Rest Agent' });
    assert.equal(created.status, 201);
    assert.equal(created.body.message, 'Agent created successfully.');
    const { id, encrypted_id: encrypted } = created.body.data;
    assert.deepEqual(
      { ...created.body.data, id: undefined, encrypted_id: undefined },
      { id: undefined, encrypted_id: undefined, name: 'Rest Agent', active: true, online: false },
    );
    const renamed = await api('PUT', `/api/agents/${toBase64Id(Number(id))}`, { name: 'Rest Agent 2' });
    assert.equal(renamed.body.data.name, 'Rest Agent 2');
    const online = await api('PUT', `/api/agents/${encrypted}/status`, { online: true });
    assert.equal(online.body.data.online, true);
    const off = await api('PUT', `/api/agents/${id}`, { active: false });
    assert.deepEqual([off.body.data.active, off.body.data.online], [false, false]);
    const refused = await api('PUT', `/api/agents/${id}/status`, { online: true });
    assert.equal(refused.status, 422);
    const [row] = await app.sql('SELECT name, active, online FROM agents WHERE id = $1', [Number(id)]);
    assert.deepEqual(row, { name: 'Rest Agent 2', active: false, online: false });
  });

  it("answers 404 for another company's, unknown and malformed ids, and 422 for bad input", async () => {
    const [{ id: gammaAgent }] = await app.sql(
      "SELECT a.id FROM agents a JOIN companies c ON c.id = a.company_id WHERE c.name = 'Gamma Solar' LIMIT 1",
    );
    for (const id of [
      String(gammaAgent),
      toBase64Id(gammaAgent),
      '999999',
      'nope',
      app.running.services.ids.encrypt('role', 1),
    ]) {
      assert.equal((await api('PUT', `/api/agents/${id}`, { name: 'x' })).status, 404, id);
      assert.equal((await api('PUT', `/api/agents/${id}/status`, { online: true })).status, 404, id);
    }
    assert.deepEqual(Object.keys((await api('POST', '/api/agents', {})).body.errors), ['name']);
    assert.deepEqual(Object.keys((await api('POST', '/api/agents', { name: 'x'.repeat(256) })).body.errors), ['name']);
    const [{ id }] = await app.sql(
      "SELECT a.id FROM agents a JOIN companies c ON c.id = a.company_id WHERE c.name = 'Acme Agency' LIMIT 1",
    );
    assert.deepEqual(Object.keys((await api('PUT', `/api/agents/${id}/status`, { online: 'yes' })).body.errors), [
      'online',
    ]);
  });
});

describe('the provider account over REST', () => {
  it('is set by the Owner, checked with the provider, and never returns the token', async () => {
    const beta = await app.login('owner@beta.test');
    const sid = demoAccountSid('beta');
    const token = demoAuthToken('beta');
    const balance = app.running.simulator!.accounts.get(sid)!.balance;
    const wrong = await api('PUT', '/api/telco/account', { account_sid: sid, auth_token: 'wrong-token' }, beta);
    assert.equal(wrong.status, 422);
    const ok = await api('PUT', '/api/telco/account', { account_sid: sid, auth_token: token }, beta);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body, {
      success: true,
      message: 'Telco account updated successfully.',
      data: { provider: 'telco', account_sid: sid, balance },
    });
    assert.ok(!ok.text.includes(token));
    const gql = await app.graphql('{ telcoAccount { provider accountSid balance } }', {}, beta);
    assert.deepEqual(gql.body.data.telcoAccount, { provider: 'telco', accountSid: sid, balance });
  });

  it('refuses a Supervisor and a malformed account sid', async () => {
    const supervisor = await app.login('supervisor@acme.test');
    assert.equal(
      (await api('PUT', '/api/telco/account', { account_sid: demoAccountSid('acme'), auth_token: 'x' }, supervisor))
        .status,
      403,
    );
    const bad = await api('PUT', '/api/telco/account', { account_sid: 'AC123', auth_token: 'x' });
    assert.equal(bad.status, 422);
    assert.deepEqual(Object.keys(bad.body.errors), ['account_sid']);
  });
});
