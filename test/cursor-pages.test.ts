import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.js';

// The long lists (appointment calls, phone numbers, spam-protected numbers,
// workflows) keep the spec's page numbers and also give a cursor: walking
// with `after` returns exactly the rows the numbered pages return, in order,
// ties on the sort column included.

const FIXED_NOW = new Date('2026-11-18T17:00:00.000Z');
let app: TestApp;
let owner: string;
let gamma: string;
let acme: number;

before(async () => {
  app = await startTestApp({}, { clock: () => FIXED_NOW });
  owner = await app.login('owner@acme.test');
  gamma = await app.login('owner@gamma.test');
  [{ id: acme }] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
  // 40 of each, in pairs sharing one timestamp, so the order falls back to the id.
  const at = (_sql: string) => `'${FIXED_NOW.toISOString()}'::timestamptz - (g / 2) * interval '1 minute'`;
  await app.sql(
    `INSERT INTO calls (company_id, from_number, to_number, started_at, duration_seconds, status, direction,
      appointment_at, tags, custom_fields, created_at, updated_at)
    SELECT $1, '+1212555' || lpad(g::text, 4, '0'), '+14155550000', ${at('')}, 60, 'completed', 'inbound',
      ${at('')} + interval '2 days', '[]', '{}', now(), now() FROM generate_series(1, 40) g`,
    [acme],
  );
  await app.sql(
    `INSERT INTO phone_numbers (company_id, phone_no, created_at, updated_at) SELECT $1, '+1303555' || ` +
      `lpad(g::text, 4, '0'), ${at('')}, now() FROM generate_series(1, 40) g`,
    [acme],
  );
  await app.sql(
    `INSERT INTO spam_protected_numbers (company_id, type, pnumber, renews_at, created_at, updated_at) ` +
      `SELECT $1, 'Custom', '+1404555' || lpad(g::text, 4, '0'), now() + interval '30 days', ${at('')}, ` +
      `now() FROM generate_series(1, 40) g`,
    [acme],
  );
  await app.sql(
    `INSERT INTO workflows (company_id, name, created_at, updated_at) SELECT $1, 'Cursor flow ' || g, ${at('')}, now() FROM generate_series(1, 40) g`,
    [acme],
  );
});
after(() => app.close());

const LISTS = [
  {
    name: 'appointmentCalls',
    args: 'filter: { dateRange: Last_30_Days }',
    fields: 'id',
    rest: '/api/ai/dashboard/appointments?date_range=Last%2030%20Days',
  },
  { name: 'phoneNumbers', args: '', fields: 'id', rest: '/api/phone-numbers' },
  { name: 'spamProtectedNumbers', args: '', fields: 'id', rest: undefined },
  { name: 'workflows', args: '', fields: 'id', rest: undefined },
];

const pageOf = async (list: (typeof LISTS)[number], paging: string, token = owner) => {
  const args = [list.args, paging].filter(Boolean).join(', ');
  const res = await app.graphql(
    `{ ${list.name}(${args}) { records { ${list.fields} } pagination { total currentPage perPage from to } nextCursor } }`,
    {},
    token,
  );
  return res;
};

describe('cursors walk the long lists as the page numbers do', () => {
  for (const list of LISTS) {
    it(`${list.name}: after each nextCursor, the same rows as page 2, 3...; null on the last page`, async () => {
      const byNumber: unknown[] = [];
      const first = await pageOf(list, 'page: 1, perPage: 7');
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const total = first.body.data[list.name].pagination.total;
      assert.ok(total >= 40, `${list.name} has ${total} rows`);
      const pages = Math.ceil(total / 7);
      for (let page = 1; page <= pages; page++) {
        byNumber.push(
          ...(await pageOf(list, `page: ${page}, perPage: 7`)).body.data[list.name].records.map(
            (r: { id: unknown }) => r.id,
          ),
        );
      }
      const byCursor: unknown[] = [];
      let cursor: string | null = null;
      let walked = 0;
      do {
        const res = await pageOf(list, cursor ? `after: "${cursor}", perPage: 7` : 'perPage: 7');
        const data = res.body.data[list.name];
        walked++;
        assert.equal(data.pagination.currentPage, walked, 'the page a cursor leads to keeps its number');
        assert.equal(data.pagination.from, (walked - 1) * 7 + 1);
        assert.equal(data.pagination.total, total);
        byCursor.push(...data.records.map((r: { id: unknown }) => r.id));
        cursor = data.nextCursor;
      } while (cursor && walked < 100);
      assert.equal(walked, pages);
      assert.deepEqual(byCursor, byNumber);
      assert.equal(new Set(byCursor).size, total, 'no row twice, none missed');
    });
  }

  it("the REST lists keep their page numbers and the spec's body (no cursor in it)", async () => {
    for (const list of LISTS.filter((l) => l.rest)) {
      const res = await app.request('GET', `${list.rest}${list.rest!.includes('?') ? '&' : '?'}per_page=7&page=2`, {
        token: owner,
      });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body.data), ['records', 'pagination']);
      assert.equal(res.body.data.pagination.from, 8);
    }
  });

  it('a cursor that is not one, or given with page: 422 naming after, nothing read', async () => {
    for (const bad of ['nope!', 'bm9wZQ', Buffer.from('["k", "1", 0]').toString('base64url'), 'x'.repeat(500)]) {
      const res = await pageOf(LISTS[1], `after: "${bad}"`);
      assert.equal(res.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', bad);
      assert.equal(res.body.errors[0].message, 'The after field is not a cursor this list gave.');
      assert.equal(res.body.data, null);
    }
    const cursor = (await pageOf(LISTS[1], 'perPage: 5')).body.data.phoneNumbers.nextCursor;
    const both = await pageOf(LISTS[1], `page: 2, after: "${cursor}"`);
    assert.equal(both.body.errors[0].message, 'Give either page or after, not both.');
  });

  it("another company's cursor reads only the caller's own rows", async () => {
    const cursor = (await pageOf(LISTS[1], 'perPage: 5')).body.data.phoneNumbers.nextCursor;
    const acmeNumbers = new Set(
      (await app.sql('SELECT phone_no FROM phone_numbers WHERE company_id = $1', [acme])).map((r) => r.phone_no),
    );
    const res = await app.graphql(
      `{ phoneNumbers(after: "${cursor}", perPage: 100) { records { phoneNo } } }`,
      {},
      gamma,
    );
    assert.equal(res.status, 200);
    const shown = res.body.data.phoneNumbers.records.map((r: { phoneNo: string }) => r.phoneNo);
    assert.ok(shown.length > 0, 'Gamma has numbers of its own to show');
    for (const number of shown) assert.ok(!acmeNumbers.has(number), `an Acme number shown to Gamma: ${number}`);
  });
});
