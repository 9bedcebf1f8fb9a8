import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { demoAccountSid } from '../src/telco/inventory.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// A purchase is recorded as pending before the provider is called, so a
// failure after the provider charged never loses the number: the telco
// simulator loses its answer after buying, or the local write fails, and the
// reconciler (the job's own code) settles it.

let app: TestApp;
let owner: string;

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
});
after(() => app.close());

const sim = () => app.running.simulator!;
const reconcile = () => app.running.services.purchases.reconcilePurchases(app.running.services.contexts);
const purchase = (token: string, as = owner) =>
  app.request('POST', '/api/phone-numbers/purchase', { token: as, body: { provider: 'telco', phoneNo: token } });
const pick = async (areaCode: string, as = owner) =>
  (await app.request('GET', `/api/phone-numbers/available?area_code=${areaCode}`, { token: as })).body.data[0];
const purchaseRow = async (phone: string) =>
  (await app.sql('SELECT * FROM number_purchases WHERE phone_no = $1', [phone]))[0];
const recorded = async (phone: string) =>
  (await app.sql('SELECT count(*)::int AS n FROM phone_numbers WHERE phone_no = $1', [phone]))[0].n;
/** Time passing: the purchase was last touched long enough ago for the reconciler to take it. */
const age = (phone: string) =>
  app.sql("UPDATE number_purchases SET updated_at = now() - interval '10 minutes' WHERE phone_no = $1", [phone]);

describe('a number bought at the provider is never lost', () => {
  it('the provider buys but its answer is lost: 502, the token stays spent, the reconciler records the number', async () => {
    const number = await pick('415');
    sim().loseNextPurchaseAnswer = true;
    const res = await purchase(number.purchase_token);
    assert.equal(res.status, 502, res.text);
    assert.equal(res.body.success, false);
    const account = sim().accounts.get(demoAccountSid('acme'))!;
    assert.ok(
      account.incoming.some((n) => n.phoneNumber === number.phone_number),
      'the provider did buy it',
    );
    assert.equal((await purchaseRow(number.phone_number)).status, 'pending');
    assert.equal(await recorded(number.phone_number), 0);

    const retry = await purchase(number.purchase_token);
    assert.equal(retry.status, 422, 'the same token does not buy twice');
    assert.deepEqual(retry.body, { success: false, message: 'This purchase token has already been used.' });

    assert.equal(await reconcile(), 0, 'a purchase still within the provider timeout is left alone');
    await age(number.phone_number);
    assert.equal(await reconcile(), 1);
    assert.equal(await recorded(number.phone_number), 1);
    assert.equal((await purchaseRow(number.phone_number)).status, 'completed');
    const [{ balance }] = await app.sql(
      'SELECT balance FROM telco_accounts t JOIN companies c ON c.id = t.company_id WHERE c.name = $1',
      ['Acme Agency'],
    );
    assert.equal(Number(balance), account.balance, "the balance is the provider's");
    assert.equal(await reconcile(), 0, 'settled once');
  });

  it('the local write fails after the provider bought: the number is recorded by the reconciler', async () => {
    const number = await pick('212');
    await app.sql(
      `CREATE FUNCTION refuse_number() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$ LANGUAGE plpgsql`,
    );
    await app.sql(
      `CREATE TRIGGER refuse_number BEFORE INSERT ON phone_numbers FOR EACH ROW WHEN (NEW.phone_no = ` +
        `'${number.phone_number}') EXECUTE FUNCTION refuse_number()`,
    );
    try {
      const res = await purchase(number.purchase_token);
      assert.equal(res.status, 500);
      assert.deepEqual(Object.keys(res.body), ['success', 'message', 'request_id']);
      const row = await purchaseRow(number.phone_number);
      assert.equal(row.status, 'bought');
      assert.match(row.provider_sid, /^PN/);
      assert.equal(await recorded(number.phone_number), 0);
      await age(number.phone_number);
      assert.equal(await reconcile(), 0, 'while the write still fails, nothing is settled');
      assert.equal((await purchaseRow(number.phone_number)).status, 'bought');
    } finally {
      await app.sql('DROP TRIGGER refuse_number ON phone_numbers');
      await app.sql('DROP FUNCTION refuse_number()');
    }
    assert.equal(await reconcile(), 1);
    const [phone] = await app.sql(
      'SELECT p.provider_sid, c.name FROM phone_numbers p JOIN companies c ON c.id = p.company_id WHERE phone_no = $1',
      [number.phone_number],
    );
    assert.equal(phone.name, 'Acme Agency');
    assert.equal(phone.provider_sid, (await purchaseRow(number.phone_number)).provider_sid);
  });

  it('a refusal by the provider releases the token, which may be tried again', async () => {
    const gamma = await app.login('owner@gamma.test');
    const number = await pick('312', gamma);
    const first = await purchase(number.purchase_token, gamma);
    assert.equal(first.status, 422);
    assert.deepEqual(first.body, { success: false, message: 'Insufficient funds to complete this purchase.' });
    assert.equal((await purchaseRow(number.phone_number)).status, 'released');
    const second = await purchase(number.purchase_token, gamma);
    assert.deepEqual(
      second.body,
      { success: false, message: 'Insufficient funds to complete this purchase.' },
      'not "already used"',
    );
  });

  it('a pending purchase the provider never made is released', async () => {
    const [{ id: company }] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
    await app.sql(
      'INSERT INTO number_purchases (jti, company_id, phone_no, status, created_at, updated_at) VALUES ' +
        "('never-bought', $1, '+15550000000', 'pending', now(), now() - interval '10 minutes')",
      [company],
    );
    assert.equal(await reconcile(), 1);
    assert.equal((await purchaseRow('+15550000000')).status, 'released');
    assert.equal(await recorded('+15550000000'), 0);
  });
});
