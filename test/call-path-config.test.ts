import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { SecretBox } from '../src/crypto/secret-box.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { postCallback } from './helpers/callbacks.js';
import { eventually, Receiver } from './helpers/receiver.js';
import { kill, startWorker } from './helpers/worker.js';

// The call path's configuration kept in memory (docs/call-routing.md, "Latency budget"), black-box across two API
// processes: the process that answers the provider's inbound callbacks (B) is not the one the endpoint is changed
// through (A). Once B has decided a call, a change made behind the product's back with the change triggers switched
// off (session_replication_role = replica) is not seen by B: it reads no configuration per call. A change made any
// other way (the API on A, or SQL with the triggers on) is seen by B at its next call after the notification, and
// so is a provider account's new auth token: the old one's signature is refused from then on.

let app: TestApp;
let owner: string;
let b: ChildProcess & { url: string };
let account: { sid: string; authToken: string; companyId: number };
let number: string;
const endpoints = { first: new Receiver(), second: new Receiver(), third: new Receiver() };
let endpointId: string;

const callSid = () => `CA${Math.random().toString(16).slice(2).padEnd(32, '0').slice(0, 32)}`;
const inbound = (base: string, token = account.authToken) =>
  postCallback(base, token, '/api/telco/voice/inbound', {
    AccountSid: account.sid,
    CallSid: callSid(),
    From: '+14155550177',
    To: number,
  });
const asked = (receiver: Receiver) => receiver.received.filter((r) => r.body.includes('"call.inbound"')).length;
const decide = { status: 200, body: JSON.stringify({ action: 'answer' }) };

before(async () => {
  app = await startTestApp({ PROCESS_ROLE: 'api' });
  owner = await app.login('owner@acme.test');
  account = await app.providerAccount();
  [{ phone_no: number }] = await app.sql(
    'SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1',
    [account.companyId],
  );
  for (const receiver of Object.values(endpoints)) {
    await receiver.start();
    receiver.answer = () => decide;
  }
  const created = await app.request('POST', '/api/decision-endpoints', {
    token: owner,
    body: { url: `${endpoints.first.url}/decide`, fallback_action: 'reject' },
  });
  assert.equal(created.status, 201, created.text);
  endpointId = created.body.data.id;
  b = await startWorker(app, { PROCESS_ROLE: 'api' });
});
after(async () => {
  if (b && b.exitCode === null && b.signalCode === null) await kill(b);
  for (const receiver of Object.values(endpoints)) await receiver.close();
  await app?.close();
});

describe("the call path's configuration in memory", () => {
  it('is read once: a change the triggers do not announce is not seen, one they do is seen at the next call', async () => {
    const first = await inbound(b.url);
    assert.equal(first.status, 200, await first.text());
    assert.equal(asked(endpoints.first), 1);
    // Behind the product's back, unannounced: B keeps asking the endpoint it read.
    await app.sql(
      `DO $$ BEGIN SET LOCAL session_replication_role = replica;
         UPDATE decision_endpoints SET url = '${endpoints.second.url}/decide' WHERE id = ${Number(endpointId)}; END $$`,
    );
    for (let i = 0; i < 3; i++) assert.equal((await inbound(b.url)).status, 200);
    assert.equal(asked(endpoints.first), 4, 'B asked the endpoint it kept');
    assert.equal(asked(endpoints.second), 0);
    // Through the API of the other process: announced by the trigger, B's next call asks the new endpoint.
    const moved = await app.request('PUT', `/api/decision-endpoints/${endpointId}`, {
      token: owner,
      body: { url: `${endpoints.third.url}/decide` },
    });
    assert.equal(moved.status, 200, moved.text);
    await eventually(
      async () => ((await inbound(b.url)).status === 200 && asked(endpoints.third) > 0 ? true : undefined),
      5000,
      'B to ask the new endpoint',
    );
    const before = asked(endpoints.first);
    assert.equal((await inbound(b.url)).status, 200);
    assert.equal(asked(endpoints.first), before, 'the old endpoint is asked no more');
  });

  it("refuses the old auth token's signature once the account's token changes, and takes the new one", async () => {
    assert.equal((await inbound(b.url)).status, 200);
    const box = new SecretBox(app.config.appKey);
    const token = 'a'.repeat(32);
    await app.sql('UPDATE telco_accounts SET auth_token_sealed = $1 WHERE company_id = $2', [
      box.seal(token),
      account.companyId,
    ]);
    await eventually(
      async () => ((await inbound(b.url)).status === 403 ? true : undefined),
      5000,
      'the old signature to be refused',
    );
    assert.equal((await inbound(b.url, token)).status, 200);
    assert.equal((await inbound(app.url, token)).status, 200, 'and by the process the change was made beside');
  });
});
