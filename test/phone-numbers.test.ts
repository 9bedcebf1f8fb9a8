import assert from 'node:assert/strict';
import jwt from 'jsonwebtoken';
import { after, before, describe, it } from 'node:test';
import { toBase64Id } from '../src/kernel/ids.js';
import { demoAccountSid } from '../src/telco/inventory.js';
import { TEST_JWT_SECRET, startTestApp, type TestApp } from './helpers/app.js';

let app: TestApp;
let owner: string; // Acme: provider account with a balance of 20.00
let beta: string; // no provider account
let gamma: string; // provider account with a balance of 1.00
let ids: Record<string, number>;

before(async () => {
  app = await startTestApp({ PUBLIC_URL: 'https://switchboard.example' });
  owner = await app.login('owner@acme.test');
  beta = await app.login('owner@beta.test');
  gamma = await app.login('owner@gamma.test');
  ids = Object.fromEntries((await app.sql('SELECT name, id FROM companies')).map((r) => [r.name, r.id]));
});
after(() => app.close());

const sim = () => app.running.simulator!;
const post = (path: string, body: unknown, token = owner) => app.request('POST', path, { token, body });
const numberRow = async (phoneNo: string) =>
  (await app.sql('SELECT * FROM phone_numbers WHERE phone_no = $1', [phoneNo]))[0];
const balance = async (token = owner) =>
  (await app.graphql('{ telcoAccount { balance accountSid } }', {}, token)).body.data.telcoAccount;

describe('available numbers and purchase', () => {
  it('search, purchase: the number appears in the list and the balance drops, at the provider too', async () => {
    const search = await app.request('GET', '/api/phone-numbers/available?area_code=415&phone_type=local', {
      token: owner,
    });
    assert.equal(search.status, 200);
    assert.ok(search.body.data.length > 0);
    assert.ok(
      search.body.data.every(
        (n: any) => n.phone_number.startsWith('+1415') && n.phone_type === 'local' && n.purchase_token,
      ),
    );
    const pick = search.body.data[1];
    assert.equal((await balance()).balance, 20);

    const res = await post('/api/phone-numbers/purchase', { provider: 'telco', phoneNo: pick.purchase_token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, message: 'Number purchased successfully.' });
    const row = await numberRow(pick.phone_number);
    assert.equal(row.company_id, ids['Acme Agency']);
    assert.equal(row.provider, 'telco');
    assert.match(row.provider_sid, /^PN/);
    assert.equal((await balance()).balance, 18.85);
    assert.equal(sim().accounts.get(demoAccountSid('acme'))!.balance, 18.85);
    const list = await app.request(
      'GET',
      `/api/phone-numbers?search=${encodeURIComponent(pick.phone_number.slice(2))}`,
      { token: owner },
    );
    assert.deepEqual(
      list.body.data.records.map((n: any) => n.phone_no),
      [pick.phone_number],
    );
    const again = await app.request('GET', '/api/phone-numbers/available?area_code=415', { token: owner });
    assert.ok(!again.body.data.some((n: any) => n.phone_number === pick.phone_number), 'no longer for sale');
  });

  it('a token used twice buys once; baseNo is an alias of phoneNo', async () => {
    const [pick] = (await app.request('GET', '/api/phone-numbers/available?area_code=212', { token: owner })).body.data;
    const first = await post('/api/phone-numbers/purchase', { provider: 'telco', baseNo: pick.purchase_token });
    assert.equal(first.status, 200, first.text);
    const before = await balance();
    const second = await post('/api/phone-numbers/purchase', { provider: 'telco', phoneNo: pick.purchase_token });
    assert.equal(second.status, 422);
    assert.deepEqual(second.body, { success: false, message: 'This purchase token has already been used.' });
    assert.deepEqual(await balance(), before);
    assert.equal(
      (await app.sql('SELECT count(*)::int AS n FROM phone_numbers WHERE phone_no = $1', [pick.phone_number]))[0].n,
      1,
    );
  });

  it("refuses bad input: provider, missing, forged, expired or another company's token", async () => {
    const [pick] = (await app.request('GET', '/api/phone-numbers/available?area_code=312', { token: owner })).body.data;
    const wrongProvider = await post('/api/phone-numbers/purchase', {
      provider: 'other',
      phoneNo: pick.purchase_token,
    });
    assert.equal(wrongProvider.status, 422);
    assert.deepEqual(wrongProvider.body.errors, {
      provider: ['The provider field does not accept "other"; it accepts "telco".'],
    });
    const missing = await post('/api/phone-numbers/purchase', {});
    assert.equal(missing.status, 422);
    assert.deepEqual(Object.keys(missing.body.errors).sort(), ['phoneNo', 'provider']);
    const claims = jwt.decode(pick.purchase_token) as jwt.JwtPayload;
    const expired = jwt.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 1 }, TEST_JWT_SECRET, {
      algorithm: 'HS256',
    });
    const forged = jwt.sign({ ...claims, price: '0.01' }, 'not-the-secret-not-the-secret-not-the-secret', {
      algorithm: 'HS256',
    });
    for (const token of [expired, forged, 'nonsense']) {
      const res = await post('/api/phone-numbers/purchase', { provider: 'telco', phoneNo: token });
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.errors, { phoneNo: ['The purchase token is invalid or has expired.'] });
    }
    const foreign = await post(
      '/api/phone-numbers/purchase',
      { provider: 'telco', phoneNo: pick.purchase_token },
      gamma,
    );
    assert.equal(foreign.status, 422, 'a token issued to Acme does not buy for Gamma');
    assert.equal(await numberRow(pick.phone_number), undefined);
  });

  it("carries the provider's refusals: insufficient funds, no longer available", async () => {
    const [pick] = (await app.request('GET', '/api/phone-numbers/available?area_code=646', { token: gamma })).body.data;
    const poor = await post('/api/phone-numbers/purchase', { provider: 'telco', phoneNo: pick.purchase_token }, gamma);
    assert.equal(poor.status, 422);
    assert.deepEqual(poor.body, { success: false, message: 'Insufficient funds to complete this purchase.' });
    assert.equal((await balance(gamma)).balance, 1);

    const [gone] = (await app.request('GET', '/api/phone-numbers/available?area_code=720', { token: owner })).body.data;
    sim().available = sim().available.filter((n) => n.phoneNumber !== gone.phone_number); // sold elsewhere meanwhile
    const late = await post('/api/phone-numbers/purchase', { provider: 'telco', phoneNo: gone.purchase_token });
    assert.equal(late.status, 422);
    assert.deepEqual(late.body, { success: false, message: 'The requested phone number is no longer available.' });
    assert.equal(await numberRow(gone.phone_number), undefined);
  });

  it('requires the provider credentials and balance first', async () => {
    const search = await app.request('GET', '/api/phone-numbers/available', { token: beta });
    assert.equal(search.status, 422);
    assert.equal(search.body.message, 'Telco credentials must be set first.');
    const buy = await post('/api/phone-numbers/purchase', { provider: 'telco', phoneNo: 'x' }, beta);
    assert.equal(buy.status, 422);
    assert.deepEqual(buy.body, {
      success: false,
      message: 'Telco credentials and balance must be set before purchasing.',
    });
  });

  it('setTelcoAccount verifies with the provider, stores the token sealed and never returns it', async () => {
    const sid = 'AC' + 'b'.repeat(32);
    sim().addAccount({ sid, authToken: 'beta-secret-token', balance: 5 });
    const bad = await app.graphql(
      'mutation { setTelcoAccount(accountSid: "' + sid + '", authToken: "wrong") { balance } }',
      {},
      beta,
    );
    assert.equal(bad.body.errors[0].message, 'Authenticate');
    const ok = await app.graphql(
      'mutation { setTelcoAccount(accountSid: "' +
        sid +
        '", authToken: "beta-secret-token") { accountSid balance provider } }',
      {},
      beta,
    );
    assert.deepEqual(ok.body.data.setTelcoAccount, { accountSid: sid, balance: 5, provider: 'telco' });
    const [stored] = await app.sql('SELECT auth_token_sealed FROM telco_accounts WHERE company_id = $1', [
      ids['Beta Clinic'],
    ]);
    assert.ok(!stored.auth_token_sealed.includes('beta-secret-token'));
    assert.ok(!JSON.stringify(ok.body).includes('beta-secret-token'));
    const denied = await app.graphql('{ telcoAccount { balance } }', {}, await app.login('supervisor@acme.test'));
    assert.equal(denied.body.errors, undefined, 'the Supervisor holds manage-telco-account');
    const [pick] = (await app.request('GET', '/api/phone-numbers/available?phone_type=tollfree', { token: beta })).body
      .data;
    const bought = await post('/api/phone-numbers/purchase', { provider: 'telco', phoneNo: pick.purchase_token }, beta);
    assert.equal(bought.status, 200, bought.text);
    assert.equal((await numberRow(pick.phone_number)).phone_type, 'tollfree');
  });

  it('answers 502 when the provider cannot be reached', async () => {
    const down = await startTestApp({ TELCO_BASE_URL: 'http://127.0.0.1:9', TELCO_TIMEOUT: '2s' });
    try {
      const res = await down.request('GET', '/api/phone-numbers/available', {
        token: await down.login('owner@acme.test'),
      });
      assert.equal(res.status, 502);
      assert.deepEqual(res.body, { success: false, message: 'The telco provider did not answer. Try again later.' });
    } finally {
      await down.close();
    }
  });
});

describe('import numbers and campaigns', () => {
  it('lists importable numbers; importing one removes it from the list; a token imports once', async () => {
    const list = await app.request('GET', '/api/phone-numbers/import-telco', { token: owner });
    assert.equal(list.status, 200);
    const incoming = sim()
      .accounts.get(demoAccountSid('acme'))!
      .incoming.map((n) => n.phoneNumber);
    const listed = list.body.data.map((n: any) => n.phone_number);
    assert.ok(listed.length >= 3 && listed.every((n: string) => incoming.includes(n)));
    assert.ok(!listed.some((n: string) => n.startsWith('+1415')), 'numbers bought above are already ours');
    const pick = list.body.data[0];
    const res = await post('/api/phone-numbers/import-telco', { import_token: pick.import_token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, message: 'Number imported successfully.' });
    const row = await numberRow(pick.phone_number);
    assert.equal(row.provider_sid, pick.provider_sid);
    assert.equal(row.company_id, ids['Acme Agency']);
    const after = await app.request('GET', '/api/phone-numbers/import-telco', { token: owner });
    assert.ok(!after.body.data.some((n: any) => n.phone_number === pick.phone_number));
    const twice = await post('/api/phone-numbers/import-telco', { import_token: pick.import_token });
    assert.equal(twice.status, 422);
    assert.deepEqual(twice.body, { success: false, message: 'This number has already been imported.' });
    const importClaims = jwt.decode(list.body.data[1].import_token) as jwt.JwtPayload;
    const expiredImport = jwt.sign({ ...importClaims, exp: Math.floor(Date.now() / 1000) - 1 }, TEST_JWT_SECRET, {
      algorithm: 'HS256',
    });
    const purchaseAsImport = (await app.request('GET', '/api/phone-numbers/available', { token: owner })).body.data[0]
      .purchase_token;
    for (const body of [
      {},
      { import_token: 'forged' },
      { import_token: expiredImport },
      { import_token: purchaseAsImport },
    ]) {
      const bad = await post('/api/phone-numbers/import-telco', body);
      assert.equal(bad.status, 422);
      assert.ok(bad.body.errors.import_token);
    }
    const other = list.body.data[1];
    assert.equal(
      (await post('/api/phone-numbers/import-telco', { import_token: other.import_token }, gamma)).status,
      422,
      'another company cannot use it',
    );
  });

  it('imports a messaging campaign and points the service webhooks at this service', async () => {
    const list = await app.request('GET', '/api/phone-numbers/import-telco-campaigns', { token: owner });
    assert.equal(list.status, 200);
    const campaign = list.body.data.find((c: any) => c.status === 'VERIFIED');
    assert.ok(campaign);
    const service = () =>
      sim()
        .accounts.get(demoAccountSid('acme'))!
        .services.find((s) => s.sid === campaign.messaging_service_sid)!;
    assert.equal(service().inboundRequestUrl, null);
    const res = await post('/api/phone-numbers/import-telco-campaigns', {
      messaging_service_sid: campaign.messaging_service_sid,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, message: 'Messaging campaign imported successfully.' });
    assert.equal(service().inboundRequestUrl, 'https://switchboard.example/api/telco/sms/inbound');
    assert.equal(service().statusCallback, 'https://switchboard.example/api/telco/sms/status');
    const [row] = await app.sql('SELECT * FROM messaging_campaigns WHERE messaging_service_sid = $1', [
      campaign.messaging_service_sid,
    ]);
    assert.equal(row.use_case, 'MARKETING');
    const after = await app.request('GET', '/api/phone-numbers/import-telco-campaigns', { token: owner });
    assert.ok(!after.body.data.some((c: any) => c.messaging_service_sid === campaign.messaging_service_sid));
    const twice = await post('/api/phone-numbers/import-telco-campaigns', {
      messaging_service_sid: campaign.messaging_service_sid,
    });
    assert.equal(twice.status, 422);
    const unknown = await post('/api/phone-numbers/import-telco-campaigns', { messaging_service_sid: 'MGunknown' });
    assert.equal(unknown.status, 422);
    assert.deepEqual(unknown.body, {
      success: false,
      message: 'The requested resource /Services/MGunknown was not found',
    });
    const missing = await post('/api/phone-numbers/import-telco-campaigns', {});
    assert.deepEqual(missing.body.errors, { messaging_service_sid: ['The messaging service sid field is required.'] });
  });
});

describe('PUT /api/phone-numbers/{id}', () => {
  const firstNumber = async (company = 'Acme Agency') =>
    (await app.sql('SELECT * FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1', [ids[company]]))[0];

  it('changes only the given fields, answers tendlc as tendlcs, in every id form', async () => {
    const number = await firstNumber();
    const forms = [
      String(number.id),
      toBase64Id(number.id),
      app.running.services.ids.encrypt('phone_number', number.id),
    ];
    const bodies = [
      { tendlc: 'No' },
      { phone_title: 'Front desk', status: 'Unverified' },
      { use_for: 'dialer', phone_type: 'mobile', dialable: false, provider: 'x' },
    ];
    for (let i = 0; i < forms.length; i++) {
      const res = await app.request('PUT', `/api/phone-numbers/${encodeURIComponent(forms[i])}`, {
        token: owner,
        body: bodies[i],
      });
      assert.equal(res.status, 200, forms[i]);
      assert.equal(res.body.message, 'Phone number updated successfully.');
    }
    const row = await firstNumber();
    assert.equal(row.tendlc, 'No');
    assert.equal(row.phone_title, 'Front desk');
    assert.equal(row.status, 'Unverified');
    assert.equal(row.use_for, 'dialer');
    assert.equal(row.phone_type, 'mobile');
    assert.equal(row.dialable, number.dialable, 'not a writable field');
    assert.equal(row.provider, 'telco');
    const res = await app.request('PUT', `/api/phone-numbers/${number.id}`, { token: owner, body: {} });
    assert.deepEqual(Object.keys(res.body.data), [
      'id',
      'base64_id',
      'status',
      'use_for',
      'dialable',
      'phone_no',
      'provider',
      'ai_active',
      'phone_type',
      'phone_title',
      'has_spam_protection',
      'tendlcs',
      'chatbot_agent_id',
    ]);
    assert.equal(res.body.data.tendlcs, 'No');
    assert.equal(res.body.data.base64_id, toBase64Id(number.id));
  });

  it('checks enums and lengths, changing nothing', async () => {
    const number = await firstNumber();
    const cases: Array<[unknown, string]> = [
      [{ status: 'Pending' }, 'status'],
      [{ use_for: 'fax' }, 'use_for'],
      [{ phone_type: 'satellite' }, 'phone_type'],
      [{ tendlc: 'Maybe' }, 'tendlc'],
      [{ tendlc: true }, 'tendlc'],
      [{ phone_title: 'x'.repeat(256) }, 'phone_title'],
    ];
    for (const [body, field] of cases) {
      const res = await app.request('PUT', `/api/phone-numbers/${number.id}`, { token: owner, body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(Object.keys(res.body.errors), [field]);
    }
    assert.deepEqual(await firstNumber(), number);
  });

  it('answers 404 for another company, unknown or malformed ids', async () => {
    const foreign = await firstNumber('Gamma Solar');
    for (const raw of [
      String(foreign.id),
      toBase64Id(foreign.id),
      app.running.services.ids.encrypt('phone_number', foreign.id),
      '0',
      'nope!',
      app.running.services.ids.encrypt('role', (await firstNumber()).id),
    ]) {
      const res = await app.request('PUT', `/api/phone-numbers/${encodeURIComponent(raw)}`, {
        token: owner,
        body: { phone_title: 'Mine now' },
      });
      assert.equal(res.status, 404, raw);
      assert.deepEqual(res.body, { success: false, message: 'Phone number not found.' });
    }
    assert.equal((await firstNumber('Gamma Solar')).phone_title, foreign.phone_title);
  });
});

describe('chatbot agents', () => {
  it('lists active agents 15 a page with pagination.more, no envelope', async () => {
    const active = await app.sql('SELECT id, name FROM agents WHERE company_id = $1 AND active ORDER BY name, id', [
      ids['Acme Agency'],
    ]);
    assert.ok(active.length > 15 && active.length <= 30);
    const page1 = await app.request('GET', '/api/phone-numbers/dsi-agents', { token: owner });
    assert.equal(page1.status, 200);
    assert.deepEqual(Object.keys(page1.body), ['results', 'pagination']);
    assert.deepEqual(
      page1.body.results,
      active.slice(0, 15).map((a) => ({ id: String(a.id), text: a.name })),
    );
    assert.deepEqual(page1.body.pagination, { more: true });
    const page2 = await app.request('GET', '/api/phone-numbers/dsi-agents?page=2', { token: owner });
    assert.deepEqual(
      page2.body.results.map((r: any) => r.text),
      active.slice(15).map((a) => a.name),
    );
    assert.deepEqual(page2.body.pagination, { more: false });
    const inactive = (
      await app.sql('SELECT name FROM agents WHERE company_id = $1 AND NOT active', [ids['Acme Agency']])
    ).map((r) => r.name);
    assert.ok(inactive.length > 0);
    assert.ok(![...page1.body.results, ...page2.body.results].some((r: any) => inactive.includes(r.text)));
  });

  it('filters by q and id', async () => {
    const [agent] = await app.sql('SELECT id, name FROM agents WHERE company_id = $1 AND active ORDER BY id LIMIT 1', [
      ids['Acme Agency'],
    ]);
    const byName = await app.request(
      'GET',
      `/api/phone-numbers/dsi-agents?q=${encodeURIComponent(agent.name.slice(0, 4).toLowerCase())}`,
      { token: owner },
    );
    assert.ok(byName.body.results.some((r: any) => r.id === String(agent.id)));
    assert.ok(
      byName.body.results.every((r: any) => r.text.toLowerCase().includes(agent.name.slice(0, 4).toLowerCase())),
    );
    const byId = await app.request('GET', `/api/phone-numbers/dsi-agents?id=${agent.id}`, { token: owner });
    assert.deepEqual(byId.body, { results: [{ id: String(agent.id), text: agent.name }], pagination: { more: false } });
    const [foreign] = await app.sql('SELECT id FROM agents WHERE company_id = $1 LIMIT 1', [ids['Gamma Solar']]);
    assert.deepEqual(
      (await app.request('GET', `/api/phone-numbers/dsi-agents?id=${foreign.id}`, { token: owner })).body.results,
      [],
    );
    assert.equal((await app.request('GET', '/api/phone-numbers/dsi-agents?page=0', { token: owner })).status, 422);
  });

  it('assigns an active agent as chatbot, clears it with null, refuses inactive or foreign agents', async () => {
    const [number] = await app.sql('SELECT id FROM phone_numbers WHERE company_id = $1 ORDER BY id DESC LIMIT 1', [
      ids['Acme Agency'],
    ]);
    const [agent] = await app.sql('SELECT id FROM agents WHERE company_id = $1 AND active LIMIT 1', [
      ids['Acme Agency'],
    ]);
    const set = await app.request('PUT', `/api/phone-numbers/${number.id}/chatbot`, {
      token: owner,
      body: { agent_id: String(agent.id) },
    });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.data.chatbot_agent_id, String(agent.id));
    const cleared = await app.request('PUT', `/api/phone-numbers/${number.id}/chatbot`, {
      token: owner,
      body: { agent_id: null },
    });
    assert.equal(cleared.body.data.chatbot_agent_id, null);
    const [inactive] = await app.sql('SELECT id FROM agents WHERE company_id = $1 AND NOT active LIMIT 1', [
      ids['Acme Agency'],
    ]);
    assert.equal(
      (
        await app.request('PUT', `/api/phone-numbers/${number.id}/chatbot`, {
          token: owner,
          body: { agent_id: String(inactive.id) },
        })
      ).status,
      422,
    );
    const [foreign] = await app.sql('SELECT id FROM agents WHERE company_id = $1 LIMIT 1', [ids['Gamma Solar']]);
    assert.equal(
      (
        await app.request('PUT', `/api/phone-numbers/${number.id}/chatbot`, {
          token: owner,
          body: { agent_id: String(foreign.id) },
        })
      ).status,
      404,
    );
    assert.equal(
      (await app.request('PUT', `/api/phone-numbers/${number.id}/chatbot`, { token: owner, body: {} })).status,
      422,
    );
    assert.equal(
      (await app.sql('SELECT chatbot_agent_id FROM phone_numbers WHERE id = $1', [number.id]))[0].chatbot_agent_id,
      null,
    );
  });
});

describe('AI agents in GraphQL', () => {
  it('creates, updates, switches online and lists agents', async () => {
    const created = await app.graphql('mutation { createAgent(name: "Nova") { id name active online } }', {}, owner);
    const agent = created.body.data.createAgent;
    assert.deepEqual({ ...agent, id: undefined }, { id: undefined, name: 'Nova', active: true, online: false });
    const online = await app.graphql(
      'mutation($id: ID!) { setAgentOnline(id: $id, online: true) { online } }',
      { id: agent.id },
      owner,
    );
    assert.equal(online.body.data.setAgentOnline.online, true);
    const off = await app.graphql(
      'mutation($id: ID!) { updateAgent(id: $id, active: false, name: "Nova 2") { name active online } }',
      { id: agent.id },
      owner,
    );
    assert.deepEqual(off.body.data.updateAgent, { name: 'Nova 2', active: false, online: false });
    const refused = await app.graphql(
      'mutation($id: ID!) { setAgentOnline(id: $id, online: true) { online } }',
      { id: agent.id },
      owner,
    );
    assert.equal(refused.body.errors[0].extensions.code, 'BAD_USER_INPUT');
    const list = await app.graphql('{ agents(search: "nova") { records { name } pagination { total } } }', {}, owner);
    assert.deepEqual(list.body.data.agents.records, [{ name: 'Nova 2' }]);
    const foreign = await app.graphql(
      'mutation($id: ID!) { updateAgent(id: $id, name: "x") { name } }',
      { id: agent.id },
      gamma,
    );
    assert.equal(foreign.body.errors[0].extensions.code, 'NOT_FOUND');
  });
});
