import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from './helpers/app.js';
import { type Received, Receiver } from './helpers/receiver.js';

// Ed25519 signatures (Standard Webhooks' v1a): a webhook that asks for them
// gets a key pair; receivers verify with its public key exactly as the
// specification's recipe says, here with Node's crypto alone; a rotation keeps
// both keys signing during the grace; a webhook can switch schemes both ways.

let app: TestApp;
let receiver: Receiver;
let owner: string;

/** The specification's recipe: each `v1a,` signature of `id.timestamp.body`, verified with an Ed25519 public key (whpk_ + base64 of its 32 bytes). */
function verifiesWith(publicKey: string, request: { headers: Received['headers']; body: string }): boolean {
  assert.match(publicKey, /^whpk_[A-Za-z0-9+/]{43}=$/);
  const raw = Buffer.from(publicKey.slice('whpk_'.length), 'base64');
  // SubjectPublicKeyInfo of an Ed25519 key (RFC 8410) around its 32 bytes.
  const key = createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]),
    format: 'der',
    type: 'spki',
  });
  const signed = Buffer.from(
    `${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.body}`,
  );
  return String(request.headers['webhook-signature'])
    .split(' ')
    .some((entry) => {
      const [version, signature] = entry.split(',');
      return version === 'v1a' && verify(null, signed, key, Buffer.from(signature, 'base64'));
    });
}

async function createHook(body: Record<string, unknown>) {
  const res = await app.request('POST', '/api/webhooks', {
    token: owner,
    body: { title: 'Signed', url: `${receiver.url}/${Math.random()}`, events: ['agent.created'], ...body },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

/** Causes one agent.created and returns what the hook's path received for it. */
async function deliveredTo(hook: { url: string }, name: string): Promise<Received> {
  const path = new URL(hook.url).pathname;
  await app.request('POST', '/api/agents', { token: owner, body: { name } });
  const [request] = await receiver.waitFor(1, 10_000, (r) => r.path === path && r.body.includes(`"${name}"`));
  return request;
}

before(async () => {
  app = await startTestApp();
  receiver = await new Receiver().start();
  owner = await app.login('owner@acme.test');
});
after(async () => {
  await receiver.close();
  await app.close();
});

describe('Ed25519 (v1a) signatures', () => {
  it('a v1a webhook shows its public key, and every delivery verifies with it; a tampered one does not', async () => {
    const hook = await createHook({ signature_scheme: 'v1a' });
    assert.equal(hook.signature_scheme, 'v1a');
    const fetched = await app.request('GET', `/api/webhooks/${hook.id}/public-key`, { token: owner });
    assert.equal(fetched.status, 200, fetched.text);
    assert.deepEqual(fetched.body.data, {
      public_key: hook.public_key,
      previous_public_key: null,
      previous_public_key_expires_at: null,
    });
    const request = await deliveredTo(hook, 'Signed by key');
    assert.match(String(request.headers['webhook-signature']), /^v1a,[A-Za-z0-9+/]{86}==$/);
    assert.equal(verifiesWith(hook.public_key, request), true);
    assert.equal(
      verifiesWith(hook.public_key, { ...request, body: request.body.replace('Signed by key', 'Signed by me') }),
      false,
    );
    const other = await createHook({ signature_scheme: 'v1a' });
    assert.notEqual(other.public_key, hook.public_key);
    assert.equal(verifiesWith(other.public_key, request), false);
    // The body keeps the specification's own sha256= signature, made with the webhook's secret.
    const secret = (await app.request('GET', `/api/webhooks/${hook.id}/secret`, { token: owner })).body.data.secret;
    const { createHmac } = await import('node:crypto');
    const body = JSON.parse(request.body);
    const unsigned = request.body.replace(`,"signature":"${body.metadata.signature}"`, '');
    assert.equal(body.metadata.signature, `sha256=${createHmac('sha256', secret).update(unsigned).digest('hex')}`);
  });

  it('a rotation makes a new key; both sign during the grace, and the old one is shown with its end', async () => {
    const hook = await createHook({ signature_scheme: 'v1a' });
    const rotated = await app.request('POST', `/api/webhooks/${hook.id}/rotate-secret`, { token: owner });
    assert.equal(rotated.status, 200, rotated.text);
    const keys = (await app.request('GET', `/api/webhooks/${hook.id}/public-key`, { token: owner })).body.data;
    assert.notEqual(keys.public_key, hook.public_key);
    assert.equal(keys.previous_public_key, hook.public_key);
    assert.equal(keys.previous_public_key_expires_at, rotated.body.data.previous_secret_expires_at);
    const request = await deliveredTo(hook, 'Signed twice');
    assert.equal(String(request.headers['webhook-signature']).split(' ').length, 2);
    assert.equal(verifiesWith(keys.public_key, request), true);
    assert.equal(verifiesWith(hook.public_key, request), true);
    // Past the grace only the new key signs.
    await app.sql("UPDATE webhooks SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1", [
      hook.id,
    ]);
    const later = await deliveredTo(hook, 'Signed once again');
    assert.equal(verifiesWith(keys.public_key, later), true);
    assert.equal(verifiesWith(hook.public_key, later), false);
    const after = (await app.request('GET', `/api/webhooks/${hook.id}/public-key`, { token: owner })).body.data;
    assert.equal(after.previous_public_key, null);
  });

  it('switches to v1 and back: v1 verifies with the standardwebhooks library, v1a with a new key', async () => {
    const hook = await createHook({ signature_scheme: 'v1a' });
    const toV1 = await app.request('PUT', `/api/webhooks/${hook.id}`, {
      token: owner,
      body: { signature_scheme: 'v1' },
    });
    assert.equal(toV1.status, 200, toV1.text);
    assert.equal(toV1.body.data.signature_scheme, 'v1');
    assert.equal(toV1.body.data.public_key, null);
    assert.equal((await app.request('GET', `/api/webhooks/${hook.id}/public-key`, { token: owner })).status, 404);
    const secret = (await app.request('GET', `/api/webhooks/${hook.id}/secret`, { token: owner })).body.data.secret;
    const hmac = await deliveredTo(hook, 'Signed by secret');
    assert.ok(new StandardWebhook(secret).verify(hmac.body, hmac.headers as Record<string, string>));
    assert.equal(verifiesWith(hook.public_key, hmac), false);
    const back = await app.graphql(
      'mutation ($id: ID!) { updateWebhook(id: $id, input: { signatureScheme: v1a }) { signatureScheme publicKey } }',
      { id: String(hook.id) },
      owner,
    );
    const { signatureScheme, publicKey } = back.body.data.updateWebhook;
    assert.equal(signatureScheme, 'v1a');
    assert.notEqual(publicKey, hook.public_key);
    assert.equal(verifiesWith(publicKey, await deliveredTo(hook, 'Signed by the new key')), true);
  });

  it('refuses an unknown scheme, naming the field and what it accepts, and changes nothing', async () => {
    const hook = await createHook({});
    assert.equal(hook.signature_scheme, 'v1');
    assert.equal(hook.public_key, null);
    const before = await app.fingerprint();
    for (const [method, path] of [
      ['POST', '/api/webhooks'],
      ['PUT', `/api/webhooks/${hook.id}`],
    ]) {
      const res = await app.request(method, path, {
        token: owner,
        body: { title: 'Bad', url: `${receiver.url}/bad`, events: ['agent.created'], signature_scheme: 'v2' },
      });
      assert.equal(res.status, 422, res.text);
      assert.match(
        res.body.errors.signature_scheme[0],
        /The signature scheme field does not accept "v2"; it accepts "v1" or "v1a"/,
      );
    }
    assert.equal(await app.fingerprint(), before);
    const other = await app.login('owner@gamma.test');
    assert.equal((await app.request('GET', `/api/webhooks/${hook.id}/public-key`, { token: other })).status, 404);
    assert.equal((await app.request('GET', '/api/webhooks/not-an-id/public-key', { token: owner })).status, 404);
  });
});
