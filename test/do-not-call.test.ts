import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { postCallback } from './helpers/callbacks.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// The do-not-call list (docs/dialer.md), over HTTP: numbers added in bulk and one at a time, a bad one named with its
// place and value and nothing added, a number already listed kept as it was, found, searched, paged and removed; each
// company's list its own; the permissions; and the owner of a number opting out by SMS (a stop word: no message is
// sent to it then) and back in (a start word), which takes off only its own opt-out.

let app: TestApp;
let owner: string;
let account: { sid: string; authToken: string; companyId: number };
let companyNumber: string;

const numbersOf = async (token: string, query = '') =>
  (await app.request('GET', `/api/do-not-call${query}`, { token })).body.data.records.map(
    (r: { phone_number: string }) => r.phone_number,
  );

async function sms(from: string, body: string) {
  const response = await postCallback(app.url, account.authToken, '/api/telco/sms/inbound', {
    AccountSid: account.sid,
    MessageSid: `SM${randomBytes(16).toString('hex')}`,
    From: from,
    To: companyNumber,
    Body: body,
  });
  assert.equal(response.status, 204, await response.text());
}

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  account = await app.providerAccount();
  [{ phone_no: companyNumber }] = await app.sql(
    'SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1',
    [account.companyId],
  );
});
after(() => app?.close());

describe('do-not-call list: the API', () => {
  it('adds numbers in bulk, keeps a listed one as it was, and finds, searches and removes them', async () => {
    const added = await app.request('POST', '/api/do-not-call', {
      token: owner,
      body: { phone_numbers: ['+14155550101', '+14155550102', '+14155550101'], note: 'Asked on a call' },
    });
    assert.equal(added.status, 201, added.text);
    assert.deepEqual(added.body, {
      success: true,
      message: 'Numbers added to the do-not-call list.',
      data: { added: 2, already_listed: 0 },
    });
    const again = await app.request('POST', '/api/do-not-call', {
      token: owner,
      body: { phone_numbers: ['+14155550102', '+442071838750'] },
    });
    assert.deepEqual(again.body.data, { added: 1, already_listed: 1 });
    // The first entry keeps its note.
    const one = await app.request('GET', `/api/do-not-call/${encodeURIComponent('+14155550102')}`, { token: owner });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(
      { ...one.body.data, created_at: undefined },
      { phone_number: '+14155550102', source: 'api', note: 'Asked on a call', created_at: undefined },
    );
    // The + as is, in the path, is the same number.
    assert.equal((await app.request('GET', '/api/do-not-call/+14155550102', { token: owner })).status, 200);
    assert.deepEqual(await numbersOf(owner), ['+442071838750', '+14155550102', '+14155550101']);
    assert.deepEqual(await numbersOf(owner, '?search=4420'), ['+442071838750']);
    const removed = await app.request('DELETE', '/api/do-not-call/%2B14155550101', { token: owner });
    assert.deepEqual(removed.body, { success: true, message: 'Number removed from the do-not-call list.' });
    assert.equal((await app.request('GET', '/api/do-not-call/%2B14155550101', { token: owner })).status, 404);
    assert.equal((await app.request('DELETE', '/api/do-not-call/%2B14155550101', { token: owner })).status, 404);
    const graphql = await app.graphql(
      'query { doNotCallEntry(phoneNumber: "+442071838750") { source note } }',
      {},
      owner,
    );
    assert.deepEqual(graphql.body.data.doNotCallEntry, { source: 'api', note: null });
  });

  it('names a bad number with its place and value, a list too long, and adds none of them', async () => {
    const before = await app.fingerprint();
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ phone_numbers: ['+14155550150', '555-0101'] }, 'phone_numbers.1', /E\.164.*"555-0101"/],
      [{ phone_numbers: [] }, 'phone_numbers', /required/],
      [{}, 'phone_numbers', /required/],
      [
        { phone_numbers: Array.from({ length: 1001 }, (_, i) => `+1415556${String(i).padStart(4, '0')}`) },
        'phone_numbers',
        /1000/,
      ],
      [{ phone_numbers: ['+14155550150'], note: 'n'.repeat(256) }, 'note', /255/],
    ];
    for (const [body, field, text] of cases) {
      const response = await app.request('POST', '/api/do-not-call', { token: owner, body });
      assert.equal(response.status, 422, `${field}: ${response.text.slice(0, 300)}`);
      assert.ok(response.body.errors[field], `${field} named: ${response.text.slice(0, 300)}`);
      assert.match(response.body.errors[field].join(' '), text);
    }
    for (const path of ['/api/do-not-call/555-0101', '/api/do-not-call/abc']) {
      const response = await app.request('GET', path, { token: owner });
      assert.equal(response.status, 422, response.text);
      assert.match(response.body.errors.phone_number.join(' '), /E\.164/);
    }
    assert.equal(await app.fingerprint(), before);
  });

  it("keeps each company's list its own, and needs view-campaigns to read and manage-campaigns to change", async () => {
    const beta = await app.login('owner@beta.test');
    assert.deepEqual(await numbersOf(beta), []);
    assert.equal((await app.request('GET', '/api/do-not-call/%2B442071838750', { token: beta })).status, 404);
    assert.equal((await app.request('DELETE', '/api/do-not-call/%2B442071838750', { token: beta })).status, 404);
    assert.equal(
      (await app.request('POST', '/api/do-not-call', { token: beta, body: { phone_numbers: ['+442071838750'] } })).body
        .data.added,
      1,
    );
    // Acme's entry is still Acme's own.
    assert.equal((await app.request('GET', '/api/do-not-call/%2B442071838750', { token: owner })).body.data.note, null);
    const viewer = await app.userWith(['view-campaigns']);
    assert.equal((await app.request('GET', '/api/do-not-call', { token: viewer })).status, 200);
    const refused = await app.request('POST', '/api/do-not-call', {
      token: viewer,
      body: { phone_numbers: ['+14155550160'] },
    });
    assert.equal(refused.status, 403);
    const nobody = await app.userWith([]);
    assert.equal((await app.request('GET', '/api/do-not-call', { token: nobody })).status, 403);
  });
});

describe('do-not-call list: opting out by SMS', () => {
  it('puts the sender on the list at a stop word, takes that opt-out off at a start word, and ignores other texts', async () => {
    await sms('+14155550177', 'Hello, is this the dentist?');
    assert.equal((await app.request('GET', '/api/do-not-call/%2B14155550177', { token: owner })).status, 404);
    await sms('+14155550177', ' stop ');
    const entry = await app.request('GET', '/api/do-not-call/%2B14155550177', { token: owner });
    assert.equal(entry.status, 200, entry.text);
    assert.equal(entry.body.data.source, 'sms_stop');
    // No message goes to a number that opted out, as carriers refuse them.
    const sends = async () =>
      (await app.sql('SELECT count(*)::int AS n FROM sms_messages WHERE to_number = $1', ['+14155550177']))[0].n;
    const sent = await sends();
    const refused = await app.request('POST', '/api/sms', {
      token: owner,
      body: { to: '+14155550177', body: 'Your appointment is tomorrow.' },
    });
    assert.equal(refused.status, 422, refused.text);
    assert.match(refused.body.errors.to.join(' '), /\+14155550177 opted out by texting STOP/);
    assert.equal(await sends(), sent);
    await sms('+14155550177', 'START');
    const again = await app.request('POST', '/api/sms', {
      token: owner,
      body: { to: '+14155550177', body: 'Your appointment is tomorrow.' },
    });
    assert.equal(again.status, 201, again.text);
    assert.equal((await app.request('GET', '/api/do-not-call/%2B14155550177', { token: owner })).status, 404);
    // A number the company listed itself stays listed whatever its owner texts.
    await sms('+442071838750', 'UNSTOP');
    assert.equal((await app.request('GET', '/api/do-not-call/%2B442071838750', { token: owner })).status, 200);
  });
});
