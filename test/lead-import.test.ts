import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { timezones } from 'libphonenumber-geo-carrier';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { appWithReceiver } from './helpers/app-with-receiver.js';
import { phoneTimeZones } from '../src/kernel/phone-time-zones.js';

// A campaign's leads given in bulk (docs/dialer.md), over REST and GraphQL: as JSON and as a CSV upload; a key given
// again is a duplicate, not a second lead; every bad row named with its place (index, or line and column) and value,
// and then none kept (reject) or the good ones (skip); the time zones of each lead (its own, else its number's, from
// libphonenumber's map); lead.generated for each lead added, signed; the bounds (1,000 a request, 100,000 a campaign,
// 16 MiB a file); another company's campaign, a malformed id and each id form; the permission.

const parts = appWithReceiver();
const csvHeaders = (token: string) => ({ token, headers: { 'content-type': 'text/csv' } });

async function campaign(token: string, name: string): Promise<number> {
  const created = await parts.app.request('POST', '/api/campaigns', { token, body: { name } });
  assert.equal(created.status, 201, created.text);
  return created.body.data.id;
}

async function webhook(events: string[]): Promise<{ id: number; secret: string }> {
  const created = await parts.app.graphql(
    'mutation ($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } secret } }',
    { input: { title: 'Leads', url: `${parts.receiver.url}/leads`, events, listSelection: 'Basic' } },
    parts.owner,
  );
  assert.equal(created.body.errors, undefined, created.text);
  return { id: created.body.data.createWebhook.webhook.id, secret: created.body.data.createWebhook.secret };
}

const leadsOf = async (id: number) =>
  parts.app.sql(
    `SELECT l.key, l.variables, l.time_zone, l.time_zones, l.state, l.source, c.phone_number, c.first_name, c.email
       FROM leads l JOIN contacts c ON c.id = l.contact_id WHERE l.campaign_id = $1 ORDER BY l.id`,
    [id],
  );

describe('leads as JSON', () => {
  it('adds leads with their variables and zones; a key given again is a duplicate; lead.generated for each added', async () => {
    const { app, owner, receiver } = parts;
    const hook = await webhook(['lead_generated']);
    const id = await campaign(owner, 'Winter renewals');
    const added = await app.request('POST', `/api/campaigns/${id}/leads`, {
      token: owner,
      body: {
        leads: [
          { phone_number: '+12125550101', first_name: 'Ann', variables: { plan: 'gold', seats: 3, vip: true } },
          { phone_number: '+14155550102', key: 'crm-17', time_zone: 'America/Denver', source: 'crm' },
          { phone_number: '+18005550103', email: 'cy@example.com' },
        ],
      },
    });
    assert.equal(added.status, 201, added.text);
    assert.deepEqual(added.body, {
      success: true,
      message: 'Leads added.',
      data: { campaign_id: id, added: 3, duplicates: 0, rejected: 0, leads: 3, errors: [] },
    });
    const again = await app.request('POST', `/api/campaigns/${id}/leads`, {
      token: owner,
      body: {
        leads: [
          { phone_number: '+12125550101' },
          { phone_number: '+19175550104', key: 'crm-17' },
          { phone_number: '+13125550105', key: 'crm-18' },
          { phone_number: '+13125550106', key: 'crm-18' },
        ],
      },
    });
    assert.deepEqual(again.body.data, { campaign_id: id, added: 1, duplicates: 3, rejected: 0, leads: 4, errors: [] });
    const rows = await leadsOf(id);
    assert.deepEqual(
      rows.map((r) => [r.key, r.phone_number, r.state]),
      [
        ['+12125550101', '+12125550101', 'pending'],
        ['crm-17', '+14155550102', 'pending'],
        ['+18005550103', '+18005550103', 'pending'],
        ['crm-18', '+13125550105', 'pending'],
      ],
    );
    assert.deepEqual(rows[0].variables, { plan: 'gold', seats: 3, vip: true });
    assert.equal(rows[0].first_name, 'Ann');
    assert.deepEqual(rows[0].time_zones, ['America/New_York'], "a New York number's zone");
    assert.deepEqual(
      [rows[1].time_zone, rows[1].time_zones, rows[1].source],
      ['America/Denver', ['America/Denver'], 'crm'],
    );
    assert.ok(rows[2].time_zones.length > 10, 'a toll-free number is in every zone of its country code');
    assert.equal(rows[2].email, 'cy@example.com');
    assert.deepEqual(rows[3].time_zones, ['America/Chicago']);

    const listed = await app.request('GET', `/api/leads?campaign_id=${id}&per_page=100`, { token: owner });
    const crm = listed.body.data.records.find((r: { key: string }) => r.key === 'crm-17');
    assert.deepEqual(
      { key: crm.key, tz: crm.time_zone, zones: crm.time_zones, state: crm.state, variables: crm.variables },
      { key: 'crm-17', tz: 'America/Denver', zones: ['America/Denver'], state: 'pending', variables: {} },
    );
    const events = await receiver.waitFor(4, 15_000, (r) => r.body.includes('"lead.generated"'));
    const datas = events.map((e) => {
      assert.ok(new StandardWebhook(hook.secret).verify(e.body, e.headers as Record<string, string>));
      return JSON.parse(e.body).data;
    });
    assert.deepEqual(datas.map((d) => d.campaign_id).sort(), [String(id), String(id), String(id), String(id)]);
    assert.deepEqual(datas.map((d) => d.contact.phone_number).sort(), [
      '+12125550101',
      '+13125550105',
      '+14155550102',
      '+18005550103',
    ]);
    assert.equal(datas.find((d) => d.contact.phone_number === '+12125550101').contact.first_name, 'Ann');
    const stored = await app.sql('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [hook.id]);
    assert.equal(stored[0].n, 4, 'one delivery per lead added, none for a duplicate');
    await app.request('DELETE', `/api/webhooks/${hook.id}`, { token: owner });
  });

  it('names every bad lead with its place, field and value; reject keeps none, skip keeps the good ones', async () => {
    const { app, owner } = parts;
    const id = await campaign(owner, 'Bad rows');
    const leads = [
      { phone_number: '+14155550111' },
      { phone_number: '415 555 0112', email: 'not-mail' },
      { phone_number: '+14155550113', time_zone: 'Mars/Olympus', variables: { 'bad name': 1, note: { deep: 1 } } },
    ];
    const before = await app.fingerprint();
    const refused = await app.request('POST', `/api/campaigns/${id}/leads`, { token: owner, body: { leads } });
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(refused.body.errors, {
      'leads.1.phone_number': ['Lead 1, phone_number: "415 555 0112" is not an E.164 number, such as +14155550100.'],
      'leads.1.email': ['Lead 1, email: "not-mail" is not an email address, such as ann@example.com.'],
      'leads.2.time_zone': ['Lead 2, time_zone: "Mars/Olympus" is not an IANA time zone, such as America/New_York.'],
      'leads.2.variables.bad name': [
        'Lead 2, variables.bad name: a variable name is a letter or _, then up to 63 letters, digits or _.',
      ],
      'leads.2.variables.note': ['Lead 2, variables.note: a variable is a string, a number, true or false.'],
    });
    assert.equal(await app.fingerprint(), before, 'nothing added, no contact made');
    const skipped = await app.graphql(
      `mutation ($id: ID!, $leads: [CampaignLeadInput!]!) { addCampaignLeads(campaignId: $id, leads: $leads,
        onError: skip) { added rejected leads errors { index line column value message } } }`,
      {
        id: String(id),
        leads: leads.map(({ phone_number, time_zone, ...rest }) => ({
          phoneNumber: phone_number,
          timeZone: time_zone,
          ...rest,
        })),
      },
      owner,
    );
    assert.equal(skipped.body.errors, undefined, skipped.text);
    const result = skipped.body.data.addCampaignLeads;
    assert.deepEqual([result.added, result.rejected, result.leads], [1, 2, 1]);
    assert.deepEqual(result.errors[0], {
      index: 1,
      line: null,
      column: 'phone_number',
      value: '415 555 0112',
      message: 'Lead 1, phone_number: "415 555 0112" is not an E.164 number, such as +14155550100.',
    });
    assert.deepEqual(
      (await leadsOf(id)).map((r) => r.phone_number),
      ['+14155550111'],
    );
    const none = await app.request('POST', `/api/campaigns/${id}/leads`, { token: owner, body: { leads: [] } });
    assert.equal(none.status, 422);
    assert.deepEqual(none.body.errors, { leads: ['The leads field must hold 1 to 1000 leads (got 0).'] });
    const many = Array.from({ length: 1001 }, (_, i) => ({ phone_number: `+1415556${String(i).padStart(4, '0')}` }));
    const tooMany = await app.request('POST', `/api/campaigns/${id}/leads`, { token: owner, body: { leads: many } });
    assert.equal(tooMany.status, 422, tooMany.text);
    assert.deepEqual(Object.keys(tooMany.body.errors), ['leads']);
  });
});

describe('leads from a CSV file', () => {
  it('reads the header, makes the other columns variables, and names each bad row by line and column', async () => {
    const { app, owner } = parts;
    const id = await campaign(owner, 'From the CRM export');
    const csv =
      '\uFEFFphone_number,first_name,time_zone,plan,notes\n' +
      '+12125550121,Ann,,gold,"likes mornings,\nasked for Tuesday"\n' +
      '+442071838750,Bob,Europe/London,,\n' +
      '\n' +
      '4155550123,Cy,,silver,\n' +
      '+14155550124,Dee,Nowhere/Zone,,\n' +
      '+14155550125,Eve\n' +
      '+14155550126,Fay,,bronze,"quoted ""well"""\n';
    const before = await app.fingerprint();
    const refused = await app.request('POST', `/api/campaigns/${id}/leads/import`, { ...csvHeaders(owner), raw: csv });
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(refused.body.errors, {
      'csv.6.phone_number': ['Line 6, phone_number: "4155550123" is not an E.164 number, such as +14155550100.'],
      'csv.7.time_zone': ['Line 7, time_zone: "Nowhere/Zone" is not an IANA time zone, such as America/New_York.'],
      'csv.8': ['Line 8: Invalid Record Length: columns length is 5, got 2 on line 8'],
    });
    assert.equal(await app.fingerprint(), before);

    const kept = await app.request('POST', `/api/campaigns/${id}/leads/import?on_error=skip`, {
      ...csvHeaders(owner),
      raw: csv,
    });
    assert.equal(kept.status, 201, kept.text);
    assert.equal(kept.body.message, 'Leads imported.');
    assert.deepEqual(
      {
        ...kept.body.data,
        errors: kept.body.data.errors.map((e: { line: number; column: string }) => [e.line, e.column]),
      },
      {
        campaign_id: id,
        added: 3,
        duplicates: 0,
        rejected: 3,
        leads: 3,
        errors: [
          [6, 'phone_number'],
          [7, 'time_zone'],
          [8, null],
        ],
      },
    );
    const rows = await leadsOf(id);
    assert.deepEqual(
      rows.map((r) => [r.phone_number, r.first_name, r.variables, r.time_zones]),
      [
        ['+12125550121', 'Ann', { plan: 'gold', notes: 'likes mornings,\nasked for Tuesday' }, ['America/New_York']],
        ['+442071838750', 'Bob', {}, ['Europe/London']],
        ['+14155550126', 'Fay', { plan: 'bronze', notes: 'quoted "well"' }, ['America/Los_Angeles']],
      ],
    );
    // The same file again: every good row a duplicate.
    const again = await app.graphql(
      'mutation ($id: ID!, $csv: String!) { importCampaignLeads(campaignId: $id, csv: $csv, onError: skip) { added duplicates rejected } }',
      { id: String(id), csv },
      owner,
    );
    assert.deepEqual(again.body.data.importCampaignLeads, { added: 0, duplicates: 3, rejected: 3 });
  });

  it('refuses a file without phone_number, an empty one, another media type and one over 16 MiB, changing nothing', async () => {
    const { app, owner } = parts;
    const id = await campaign(owner, 'Refusals');
    const before = await app.fingerprint();
    const post = (raw: string, contentType = 'text/csv') =>
      app.request('POST', `/api/campaigns/${id}/leads/import`, {
        token: owner,
        headers: { 'content-type': contentType },
        raw,
      });
    const header = await post('number,name\n+14155550131,Ann\n');
    assert.equal(header.status, 422);
    assert.deepEqual(header.body.errors, {
      csv: ['Line 1 names the columns; it must name phone_number (it names "number", "name").'],
    });
    const twice = await post('phone_number,plan,plan\n+14155550131,a,b\n');
    assert.deepEqual(twice.body.errors, { csv: ['Line 1 names the column "plan" twice.'] });
    const empty = await post('phone_number,first_name\n');
    assert.equal(empty.status, 422);
    assert.deepEqual(empty.body.errors, {
      csv: ['The file holds no leads: a header row naming the columns, then a lead a row.'],
    });
    const json = await post('{"leads":[]}', 'application/json');
    assert.equal(json.status, 422);
    assert.deepEqual(json.body.errors, {
      csv: ['The body must be a CSV file sent as text/csv (it was sent as application/json).'],
    });
    const missing = await app.request('POST', `/api/campaigns/${id}/leads/import`, { token: owner });
    assert.equal(missing.status, 422);
    assert.deepEqual(Object.keys(missing.body.errors), ['csv']);
    const huge = await post(`phone_number,notes\n${`+14155550131,${'x'.repeat(1000)}\n`.repeat(17_000)}`);
    assert.equal(huge.status, 413);
    assert.equal(huge.body.message, 'The CSV file is larger than 16 MiB.');
    assert.equal(await app.fingerprint(), before);
  });
});

describe('whose campaign, and who may', () => {
  it("another company's campaign, a malformed id and a completed campaign are refused; every id form is taken", async () => {
    const { app, owner } = parts;
    const gamma = await app.login('owner@gamma.test');
    const theirs = await campaign(gamma, 'Theirs');
    const ours = await campaign(owner, 'Ours');
    const before = await app.fingerprint();
    const body = { leads: [{ phone_number: '+14155550141' }] };
    for (const path of [
      `/api/campaigns/${theirs}/leads`,
      '/api/campaigns/not-an-id!/leads',
      '/api/campaigns/987654/leads',
    ]) {
      const res = await app.request('POST', path, { token: owner, body });
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.message, 'Campaign not found.');
    }
    const csv = await app.request('POST', `/api/campaigns/${theirs}/leads/import`, {
      ...csvHeaders(owner),
      raw: 'phone_number\n+14155550141\n',
    });
    assert.equal(csv.status, 404);
    assert.equal(await app.fingerprint(), before);
    const forms = [
      String(ours),
      Buffer.from(String(ours)).toString('base64'),
      app.running.services.ids.encrypt('campaign', ours),
    ];
    for (const [i, form] of forms.entries()) {
      const res = await app.request('POST', `/api/campaigns/${encodeURIComponent(form)}/leads/import`, {
        ...csvHeaders(owner),
        raw: `phone_number\n+1415555015${i}\n`,
      });
      assert.equal(res.status, 201, `${form}: ${res.text}`);
      assert.equal(res.body.data.leads, i + 1);
    }
    await app.request('POST', `/api/campaigns/${ours}/start`, { token: owner });
    await app.request('POST', `/api/campaigns/${ours}/complete`, { token: owner });
    const late = await app.request('POST', `/api/campaigns/${ours}/leads`, { token: owner, body });
    assert.equal(late.status, 422);
    assert.deepEqual(late.body.errors, { campaign_id: ['The campaign is completed: it takes no more leads.'] });
  });

  it('needs manage-campaigns', async () => {
    const { app, owner } = parts;
    const id = await campaign(owner, 'Permissions');
    const viewer = await app.userWith(['view-campaigns']);
    const res = await app.request('POST', `/api/campaigns/${id}/leads`, {
      token: viewer,
      body: { leads: [{ phone_number: '+14155550161' }] },
    });
    assert.equal(res.status, 403, res.text);
    const csv = await app.request('POST', `/api/campaigns/${id}/leads/import`, {
      ...csvHeaders(viewer),
      raw: 'phone_number\n+14155550161\n',
    });
    assert.equal(csv.status, 403);
    assert.equal((await leadsOf(id)).length, 0);
  });
});

describe('a campaign at its largest', () => {
  it('takes 100,000 leads from one file, lists them a page at a time, and refuses one more', async () => {
    const { app } = parts;
    const beta = await app.login('owner@beta.test');
    const id = await campaign(beta, 'The largest');
    const rows = Array.from(
      { length: 100_000 },
      (_, i) => `+1${String(2_000_000_000 + i * 79_991)},Lead ${i},${i % 7},"a note, with a comma, for lead ${i}"`,
    );
    const started = performance.now();
    const res = await app.request('POST', `/api/campaigns/${id}/leads/import`, {
      ...csvHeaders(beta),
      raw: `phone_number,first_name,tier,notes\n${rows.join('\n')}\n`,
    });
    assert.equal(res.status, 201, res.text.slice(0, 500));
    assert.deepEqual(
      { ...res.body.data, errors: res.body.data.errors.length },
      { campaign_id: id, added: 100_000, duplicates: 0, rejected: 0, leads: 100_000, errors: 0 },
    );
    console.log(`# 100,000 leads imported in ${Math.round(performance.now() - started)} ms`);
    const [counts] = await app.sql(
      `SELECT count(*)::int AS leads, count(DISTINCT contact_id)::int AS contacts,
         count(*) FILTER (WHERE variables ->> 'tier' IS NOT NULL)::int AS with_tier FROM leads WHERE campaign_id = $1`,
      [id],
    );
    assert.deepEqual(counts, { leads: 100_000, contacts: 100_000, with_tier: 100_000 });
    const page = await app.request('GET', `/api/leads?campaign_id=${id}&per_page=100&page=1000`, { token: beta });
    assert.equal(page.status, 200);
    assert.equal(page.body.data.records.length, 100);
    assert.equal(page.body.data.pagination.total, 100_000);
    const one = await app.request('POST', `/api/campaigns/${id}/leads`, {
      token: beta,
      body: { leads: [{ phone_number: '+14155550199' }] },
    });
    assert.equal(one.status, 422, one.text);
    assert.deepEqual(one.body.errors, {
      leads: ['A campaign holds at most 100,000 leads; it has 100,000, and this request would add more than 0.'],
    });
    const [after] = await app.sql('SELECT count(*)::int AS n FROM leads WHERE campaign_id = $1', [id]);
    assert.equal(after.n, 100_000);
  });
});

describe("the number's time zones", () => {
  it("are libphonenumber's, as the package itself answers", async () => {
    const numbers = ['+14155550101', '+12125550101', '+18005550100', '+442071838750', '+61291234567', '+79161234567'];
    for (let i = 0; i < 200; i++)
      numbers.push(`+${[1, 44, 49, 33, 61, 81, 55, 91][i % 8]}${String(2_000_000_000 + i * 37_337_117).slice(0, 9)}`);
    let compared = 0;
    for (const number of numbers) {
      const parsed = parsePhoneNumberFromString(number);
      if (!parsed) continue;
      assert.deepEqual(phoneTimeZones(parsed.number), (await timezones(parsed)) ?? [], number);
      compared++;
    }
    assert.ok(compared > 150, `${compared} numbers compared`);
  });
});
