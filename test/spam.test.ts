import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toBase64Id } from '../src/kernel/ids.js';
import { startTestApp, type TestApp } from './helpers/app.js';

let app: TestApp;
let owner: string;
let supervisor: string;
let gamma: string;
let acme: number;

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  supervisor = await app.login('supervisor@acme.test');
  gamma = await app.login('owner@gamma.test');
  acme = (await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'"))[0].id;
});
after(() => app.close());

const list = (query = '', token = owner) => app.request('GET', `/api/spam-protected-numbers${query}`, { token });
const rowOf = async (id: number) => (await app.sql('SELECT * FROM spam_protected_numbers WHERE id = $1', [id]))[0];
const firstOf = async (type: string, company = acme) =>
  (
    await app.sql('SELECT id FROM spam_protected_numbers WHERE type = $1 AND company_id = $2 ORDER BY id LIMIT 1', [
      type,
      company,
    ])
  )[0].id as number;

describe('GET /api/spam-protected-numbers', () => {
  it('lists the company numbers newest first with renewal and latest check', async () => {
    const res = await list();
    assert.equal(res.status, 200);
    const { records, pagination } = res.body.data;
    assert.equal(pagination.per_page, 15);
    assert.equal(pagination.total, 18);
    const ids = (
      await app.sql(
        'SELECT id FROM spam_protected_numbers WHERE company_id = $1 ORDER BY created_at DESC, id DESC LIMIT 15',
        [acme],
      )
    ).map((r) => r.id);
    assert.deepEqual(
      records.map((r: any) => r.id),
      ids,
    );
    const row = records[0];
    assert.deepEqual(Object.keys(row), [
      'id',
      'type',
      'status',
      'pnumber',
      'can_edit',
      'flagged_carriers',
      'renewal',
      'latest_check',
    ]);
    assert.deepEqual(Object.keys(row.renewal), ['renews_at', 'auto_renew']);
    const checked = records.find((r: any) => r.status !== 'In Progress');
    assert.deepEqual(Object.keys(checked.latest_check), ['checked_at', 'carriers_checked', 'flagged_carriers']);
    assert.equal(records.find((r: any) => r.status === 'In Progress').latest_check, null);
    for (const r of records) assert.equal(r.can_edit, r.type === 'Custom');
  });

  it('filters by status and type (All means every value) and searches number, type and status', async () => {
    const statuses = new Set((await list('?status=Flagged&per_page=100')).body.data.records.map((r: any) => r.status));
    assert.deepEqual([...statuses], ['Flagged']);
    const types = (await list('?type=House&status=All&per_page=100')).body.data.records.map((r: any) => r.type);
    assert.equal(types.length, 6);
    assert.ok(types.every((t: string) => t === 'House'));
    assert.equal((await list('?type=All&status=All')).body.data.pagination.total, 18);
    const both = (await list('?type=AI&status=In%20Progress')).body.data.records;
    assert.equal(both.length, 2);
    const byStatusWord = (await list('?search=progr&per_page=100')).body.data.records;
    assert.ok(byStatusWord.length === 6 && byStatusWord.every((r: any) => r.status === 'In Progress'));
    const byType = (await list('?search=cust&per_page=100')).body.data.records;
    assert.ok(byType.length === 6 && byType.every((r: any) => r.type === 'Custom'));
    const [one] = (await list('?per_page=1')).body.data.records;
    const byNumber = (await list(`?search=${encodeURIComponent(one.pnumber.slice(-6))}`)).body.data.records;
    assert.deepEqual(
      byNumber.map((r: any) => r.id),
      [one.id],
    );
  });

  it('refuses unknown filters and clamps per_page', async () => {
    assert.equal((await list('?status=Dirty')).status, 422);
    assert.match(
      (await list('?type=Robot')).body.errors.type[0],
      /^The type field does not accept "Robot"; it accepts "All", .+\.$/,
    );
    assert.equal((await list('?per_page=1000')).body.data.pagination.per_page, 100);
  });

  it('requires view-spam-protected-numbers and scopes by company', async () => {
    assert.equal((await list('', supervisor)).status, 403);
    const theirs = (await list('?per_page=100', gamma)).body.data.records.map((r: any) => r.id);
    const ours = (await list('?per_page=100')).body.data.records.map((r: any) => r.id);
    assert.equal(theirs.filter((id: number) => ours.includes(id)).length, 0);
  });
});

describe('PUT /api/spam-protected-numbers/{id}', () => {
  it('updates a Custom number through both paths, numeric or base64; it is In Progress again', async () => {
    const id = await firstOf('Custom');
    const res = await app.request('PUT', `/api/spam-protected-numbers/${id}`, {
      token: owner,
      body: { pnumber: '+14155550190' },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      success: true,
      message: 'Number updated successfully.',
      data: { id, type: 'Custom', pnumber: '+14155550190', can_edit: true },
    });
    const row = await rowOf(id);
    assert.equal(row.pnumber, '+14155550190');
    assert.equal(row.status, 'In Progress');
    assert.equal(row.latest_check_at, null);
    const alias = await app.request('PUT', `/api/spam-protected-numbers/update/${toBase64Id(id)}`, {
      token: owner,
      body: { pnumber: '+14155550191' },
    });
    assert.equal(alias.status, 200);
    assert.equal((await rowOf(id)).pnumber, '+14155550191');
  });

  it('refuses AI and House numbers with 422 and changes nothing', async () => {
    for (const type of ['AI', 'House']) {
      const id = await firstOf(type);
      const before = await rowOf(id);
      const res = await app.request('PUT', `/api/spam-protected-numbers/${id}`, {
        token: owner,
        body: { pnumber: '+14155550000' },
      });
      assert.equal(res.status, 422, type);
      assert.equal(res.body.success, false);
      assert.deepEqual(res.body.errors, { type: [`${type} numbers cannot be edited; only Custom numbers can.`] });
      assert.equal((await rowOf(id)).pnumber, before.pnumber);
    }
  });

  it('validates pnumber', async () => {
    const id = await firstOf('Custom');
    for (const [body, text] of [
      [{}, 'The pnumber field is required.'],
      [{ pnumber: '+1'.padEnd(21, '5') }, 'The pnumber field must not be greater than 20 characters.'],
      [{ pnumber: 12 }, 'The pnumber field must be a string.'],
    ] as const) {
      const res = await app.request('PUT', `/api/spam-protected-numbers/${id}`, { token: owner, body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(res.body.errors, { pnumber: [text] });
    }
    const twenty = await app.request('PUT', `/api/spam-protected-numbers/${id}`, {
      token: owner,
      body: { pnumber: '+1'.padEnd(20, '5') },
    });
    assert.equal(twenty.status, 200);
  });

  it('answers 404 for another company, unknown, malformed and encrypted ids', async () => {
    const foreign = await firstOf(
      'Custom',
      (await app.sql("SELECT id FROM companies WHERE name = 'Gamma Solar'"))[0].id,
    );
    const before = await rowOf(foreign);
    const ours = await firstOf('Custom');
    for (const raw of [
      String(foreign),
      toBase64Id(foreign),
      '999999',
      'bad!',
      app.running.services.ids.encrypt('spam_protected_number', ours),
    ]) {
      const res = await app.request('PUT', `/api/spam-protected-numbers/${encodeURIComponent(raw)}`, {
        token: owner,
        body: { pnumber: '+15555550000' },
      });
      assert.equal(res.status, 404, raw);
      assert.deepEqual(res.body, { success: false, message: 'Number not found.' });
    }
    assert.equal((await rowOf(foreign)).pnumber, before.pnumber);
  });
});

describe('flag settings and status transitions', () => {
  it('saves 1, 2 or 3 through PUT and POST; anything else is 422', async () => {
    const put = await app.request('PUT', '/api/spam-protected-numbers/flag-settings', {
      token: owner,
      body: { min_carriers_to_flag: 3 },
    });
    assert.equal(put.status, 200);
    assert.deepEqual(put.body, {
      success: true,
      message: 'Minimum carriers to flag settings saved successfully.',
      data: { min_carriers_to_flag: 3 },
    });
    const post = await app.request('POST', '/api/spam-protected-numbers/flag-settings', {
      token: owner,
      body: { min_carriers_to_flag: 1 },
    });
    assert.equal(post.body.data.min_carriers_to_flag, 1);
    assert.equal(
      (await app.sql('SELECT settings FROM companies WHERE id = $1', [acme]))[0].settings.minCarriersToFlag,
      1,
    );
    for (const value of [0, 4, 'two', 1.5, null]) {
      const res = await app.request('PUT', '/api/spam-protected-numbers/flag-settings', {
        token: owner,
        body: { min_carriers_to_flag: value },
      });
      assert.equal(res.status, 422, String(value));
      assert.ok(res.body.errors.min_carriers_to_flag);
    }
    assert.equal(
      (await app.sql('SELECT settings FROM companies WHERE id = $1', [acme]))[0].settings.minCarriersToFlag,
      1,
    );
  });

  it('re-evaluates every checked number of the company when the setting changes, in progress rows untouched', async () => {
    const gammaId = (await app.sql("SELECT id FROM companies WHERE name = 'Gamma Solar'"))[0].id;
    await app.sql(
      `INSERT INTO spam_protected_numbers (company_id, type, status, pnumber, flagged_carriers, carriers_checked,
        latest_check_at, renews_at, created_at, updated_at) VALUES
      ($1, 'Custom', 'Clean', '+10000000001', '["AT&T"]', '["AT&T","T-Mobile","Verizon"]', now(), now(), now(), now()),
      ($2, 'Custom', 'Clean', '+10000000002', '["AT&T","T-Mobile"]', '["AT&T","T-Mobile","Verizon"]', now(), now(), now(), now()),
      ($3, 'Custom', 'Clean', '+10000000003', '["AT&T","T-Mobile","Verizon"]', '["AT&T","T-Mobile","Verizon"]', now(), now(), now(), now())`,
      [acme, acme, acme],
    );
    const statuses = async () =>
      Object.fromEntries(
        (
          await app.sql(
            "SELECT pnumber, status FROM spam_protected_numbers WHERE pnumber LIKE '+1000000000%' ORDER BY pnumber",
          )
        ).map((r) => [r.pnumber, r.status]),
      );
    const inProgressBefore = (
      await app.sql(
        "SELECT count(*)::int AS n FROM spam_protected_numbers WHERE company_id = $1 AND status = 'In Progress'",
        [acme],
      )
    )[0].n;
    const gammaBefore = await app.sql(
      'SELECT id, status FROM spam_protected_numbers WHERE company_id = $1 ORDER BY id',
      [gammaId],
    );

    await app.request('PUT', '/api/spam-protected-numbers/flag-settings', {
      token: owner,
      body: { min_carriers_to_flag: 2 },
    });
    assert.deepEqual(await statuses(), {
      '+10000000001': 'Clean',
      '+10000000002': 'Flagged',
      '+10000000003': 'Flagged',
    });
    await app.request('PUT', '/api/spam-protected-numbers/flag-settings', {
      token: owner,
      body: { min_carriers_to_flag: 3 },
    });
    assert.deepEqual(await statuses(), { '+10000000001': 'Clean', '+10000000002': 'Clean', '+10000000003': 'Flagged' });
    await app.request('PUT', '/api/spam-protected-numbers/flag-settings', {
      token: owner,
      body: { min_carriers_to_flag: 1 },
    });
    assert.deepEqual(await statuses(), {
      '+10000000001': 'Flagged',
      '+10000000002': 'Flagged',
      '+10000000003': 'Flagged',
    });
    assert.equal(
      (
        await app.sql(
          "SELECT count(*)::int AS n FROM spam_protected_numbers WHERE company_id = $1 AND status = 'In Progress'",
          [acme],
        )
      )[0].n,
      inProgressBefore,
    );
    assert.deepEqual(
      await app.sql('SELECT id, status FROM spam_protected_numbers WHERE company_id = $1 ORDER BY id', [gammaId]),
      gammaBefore,
    );
  });

  it('a new Custom number is In Progress until its check; the check applies the threshold', async () => {
    await app.request('PUT', '/api/spam-protected-numbers/flag-settings', {
      token: owner,
      body: { min_carriers_to_flag: 2 },
    });
    const added = await app.graphql(
      'mutation { a: addCustomSpamProtectedNumber(pnumber: "+14155550007") { id status latestCheck { ' +
        'checkedAt } } b: addCustomSpamProtectedNumber(pnumber: "+14155550001") { id status } }',
      {},
      owner,
    );
    assert.equal(added.body.data.a.status, 'In_Progress', 'GraphQL names In Progress In_Progress');
    assert.equal(added.body.data.a.latestCheck, null);
    // The simulator flags a number by (last digit mod 4) carriers: ...7 by three, ...1 by one.
    const checked = await app.graphql(
      'mutation($id: ID!) { runSpamCheck(id: $id) { status flaggedCarriers latestCheck { carriersChecked } } }',
      { id: String(added.body.data.a.id) },
      owner,
    );
    assert.deepEqual(checked.body.data.runSpamCheck[0].flaggedCarriers, ['AT&T', 'T-Mobile', 'Verizon']);
    assert.equal(checked.body.data.runSpamCheck[0].status, 'Flagged');
    await app.running.jobs.agenda.now('spam-reputation-check');
    const deadline = Date.now() + 10_000;
    while ((await rowOf(added.body.data.b.id)).status === 'In Progress' && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const b = await rowOf(added.body.data.b.id);
    assert.equal(b.status, 'Clean', 'one carrier is below the threshold of two');
    assert.deepEqual(b.flagged_carriers, ['AT&T']);
    const denied = await app.graphql(
      'mutation { addCustomSpamProtectedNumber(pnumber: "+1") { id } }',
      {},
      await app.login('owner@beta.test'),
    );
    assert.equal(denied.body.errors, undefined, 'the owner of another company may add to its own list');
  });
});
