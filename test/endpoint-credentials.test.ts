import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { postCallback } from './helpers/callbacks.js';
import { makeAuthority, type TestAuthority } from './helpers/certificates.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually } from './helpers/receiver.js';

// Endpoint credentials beside the signature (docs/adr/0070), against real
// servers on loopback: an HTTPS receiver that requires a client certificate
// of a test CA (made with openssl), and an OAuth2 token endpoint with a
// receiver that takes only its Bearer tokens. Webhooks, decision endpoints
// and tools alike; every delivery verified with the standardwebhooks library.

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  peer?: string;
}

let app: TestApp;
let owner: string;
let authority: TestAuthority;
let agentId: number;
const servers: Server[] = [];

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Reads a request and answers with what `answer` says; every request is kept. */
function handler(seen: Seen[], answer: (request: Seen, res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const peer = (req.socket as TLSSocket).getPeerCertificate?.()?.subject?.CN as string | undefined;
      const request = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), peer };
      seen.push(request);
      answer(request, res);
    });
  };
}

/** An HTTPS receiver that takes only clients with a certificate of the test CA, answering 200 with `body`. */
const mutualTls = (seen: Seen[], body: string) =>
  listen(
    createHttpsServer(
      {
        key: authority.server.key,
        cert: authority.server.cert,
        ca: authority.ca,
        requestCert: true,
        rejectUnauthorized: true,
      },
      handler(seen, (_request, res) => res.writeHead(200).end(body)),
    ),
  );

/** The OAuth2 side: a token endpoint (client `switchboard`, secret `s3cret`) and a receiver taking only its live tokens. */
function oauth() {
  const state = { fetched: 0, live: new Set<string>(), expiresIn: 3600, seen: [] as Seen[], decision: '' };
  const token = createHttpServer(
    handler([], (request, res) => {
      const basic = Buffer.from('switchboard:s3cret').toString('base64');
      if (request.headers.authorization !== `Basic ${basic}` || !request.body.includes('grant_type=client_credentials'))
        return res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
      state.fetched += 1;
      const value = `tok-${state.fetched}-${randomBytes(4).toString('hex')}`;
      state.live.add(value);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: value, token_type: 'Bearer', expires_in: state.expiresIn }));
    }),
  );
  const receiver = createHttpServer(
    handler(state.seen, (request, res) => {
      const given = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
      if (!state.live.has(given)) return res.writeHead(401).end('token not taken');
      res.writeHead(200, { 'content-type': 'application/json' }).end(state.decision || 'ok');
    }),
  );
  return { state, token, receiver };
}

const webhookOf = async (body: Record<string, unknown>) => {
  const response = await app.request('POST', '/api/webhooks', {
    token: owner,
    body: { events: ['agent.created'], ...body },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.data as { id: string; secret: string; credentials: Record<string, any> };
};
const createAgent = async (name: string) =>
  assert.equal((await app.request('POST', '/api/agents', { token: owner, body: { name } })).status, 201);
const attemptsOf = (webhookId: string) =>
  app.sql(
    `SELECT d.status, d.attempt_count, a.status_code, a.error FROM webhook_deliveries d
     LEFT JOIN webhook_attempts a ON a.delivery_id = d.id WHERE d.webhook_id = $1 ORDER BY d.created_at, a.number`,
    [Number(webhookId)],
  );

before(async () => {
  authority = makeAuthority();
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  const account = await app.providerAccount();
  [{ id: agentId }] = await app.sql('SELECT id FROM agents WHERE company_id = $1 ORDER BY id LIMIT 1', [
    account.companyId,
  ]);
});
after(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await app?.close();
});

describe('mutual TLS', () => {
  it('delivers a webhook to a receiver that requires a client certificate, and fails without one', async () => {
    const seen: Seen[] = [];
    const port = await mutualTls(seen, 'ok');
    const tls = { client_certificate: authority.client.cert, client_key: authority.client.key, ca: authority.ca };
    const hook = await webhookOf({ title: 'mTLS', url: `https://127.0.0.1:${port}/hook`, credentials: { tls } });
    assert.equal(hook.credentials.tls.client_certificate_subject, 'CN=switchboard-client');
    assert.equal(hook.credentials.tls.custom_ca, true);
    assert.equal(hook.credentials.oauth2, null);
    const shown = await app.request('GET', `/api/webhooks/${hook.id}`, { token: owner });
    assert.doesNotMatch(shown.text, /PRIVATE KEY|BEGIN/, 'no key or certificate is answered');
    const [{ credentials_sealed }] = await app.sql('SELECT credentials_sealed FROM webhooks WHERE id = $1', [
      Number(hook.id),
    ]);
    assert.doesNotMatch(credentials_sealed, /PRIVATE KEY/, 'stored encrypted');

    // Only the CA, no client certificate: the receiver refuses the connection.
    const bare = await webhookOf({
      title: 'no client cert',
      url: `https://127.0.0.1:${port}/bare`,
      credentials: { tls: { ca: authority.ca } },
    });
    // A client certificate the receiver's CA did not sign: refused too.
    const stranger = await webhookOf({
      title: 'stranger',
      url: `https://127.0.0.1:${port}/stranger`,
      credentials: {
        tls: { client_certificate: authority.stranger.cert, client_key: authority.stranger.key, ca: authority.ca },
      },
    });
    await createAgent('Mutual TLS agent');
    const [delivered] = await eventually(async () => (seen.length > 0 ? seen : undefined));
    assert.equal(delivered.path, '/hook');
    assert.equal(delivered.peer, 'switchboard-client');
    new StandardWebhook(hook.secret).verify(delivered.body, delivered.headers as Record<string, string>);
    for (const refused of [bare, stranger]) {
      const [attempt] = await eventually(async () => {
        const rows = await attemptsOf(refused.id);
        return rows[0]?.error ? rows : undefined;
      });
      assert.equal(attempt.status_code, null);
      assert.ok(attempt.error, 'the attempt failed with the TLS error');
    }
    assert.deepEqual(
      seen.map((s) => s.path),
      ['/hook'],
    );
  });
});

describe('OAuth2 client credentials', () => {
  it('fetches a token once, keeps it, fetches again when it expires and once more after a 401, all in the attempt', async () => {
    const { state, token, receiver } = oauth();
    const tokenUrl = `http://127.0.0.1:${await listen(token)}/oauth/token`;
    const url = `http://127.0.0.1:${await listen(receiver)}/hook`;
    const hook = await webhookOf({
      title: 'OAuth2',
      url,
      credentials: {
        oauth2: { token_url: tokenUrl, client_id: 'switchboard', client_secret: 's3cret', scope: 'events:write' },
      },
    });
    assert.deepEqual(hook.credentials.oauth2, { token_url: tokenUrl, client_id: 'switchboard', scope: 'events:write' });
    assert.doesNotMatch(JSON.stringify(hook), /s3cret/);
    await createAgent('OAuth agent 1');
    await createAgent('OAuth agent 2');
    await eventually(async () => (state.seen.length >= 2 ? true : undefined));
    assert.equal(state.fetched, 1, 'one token for both deliveries');
    // The receiver stops taking the token: the next attempt gets a 401, fetches a new token and is delivered.
    state.live.clear();
    // The new token lives 31 s: kept 30 s less, so 1 s.
    state.expiresIn = 31;
    await createAgent('OAuth agent 3');
    await eventually(async () =>
      state.seen.filter((s) => state.live.has(s.headers.authorization?.slice(7) ?? '')).length >= 1 ? true : undefined,
    );
    assert.equal(state.fetched, 2);
    // Past its life, the next delivery fetches a token again before sending.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await createAgent('OAuth agent 4');
    await eventually(async () => (state.fetched === 3 ? true : undefined));
    const rows = await eventually(async () => {
      const all = await attemptsOf(hook.id);
      return all.length === 4 && all.every((r) => r.status === 'succeeded') ? all : undefined;
    });
    assert.deepEqual(
      rows.map((r) => [r.attempt_count, r.status_code]),
      [
        [1, 200],
        [1, 200],
        [1, 200],
        [1, 200],
      ],
    );
    for (const request of state.seen.filter((s) => s.headers['webhook-id']))
      new StandardWebhook(hook.secret).verify(request.body, request.headers as Record<string, string>);
  });

  it("fails the attempt with the token endpoint's refusal, never sending without a token", async () => {
    const { state, token, receiver } = oauth();
    const tokenUrl = `http://127.0.0.1:${await listen(token)}/oauth/token`;
    const hook = await webhookOf({
      title: 'OAuth2 wrong secret',
      url: `http://127.0.0.1:${await listen(receiver)}/hook`,
      credentials: { oauth2: { token_url: tokenUrl, client_id: 'switchboard', client_secret: 'wrong' } },
    });
    await createAgent('OAuth refused agent');
    const [attempt] = await eventually(async () => {
      const rows = await attemptsOf(hook.id);
      return rows[0]?.error ? rows : undefined;
    });
    assert.equal(attempt.error, 'OAuth2 token: the token URL answered HTTP 401');
    assert.equal(state.seen.length, 0);
  });
});

describe('credentials of decision endpoints and tools', () => {
  it('asks an OAuth2 decision endpoint with its token, and a tool behind mutual TLS with its certificate', async () => {
    const { state, token, receiver } = oauth();
    state.decision = JSON.stringify({ action: 'forward', to: '+12125550142' });
    const tokenUrl = `http://127.0.0.1:${await listen(token)}/oauth/token`;
    const created = await app.request('POST', '/api/decision-endpoints', {
      token: owner,
      body: {
        url: `http://127.0.0.1:${await listen(receiver)}/decide`,
        fallback_action: 'reject',
        credentials: { oauth2: { token_url: tokenUrl, client_id: 'switchboard', client_secret: 's3cret' } },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.credentials.oauth2.client_id, 'switchboard');
    const account = await app.providerAccount();
    const [{ phone_no: number }] = await app.sql(
      'SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1',
      [account.companyId],
    );
    const sid = `CA${randomBytes(16).toString('hex')}`;
    const call = { AccountSid: account.sid, CallSid: sid, From: '+14155550188', To: number };
    const routed = await postCallback(app.url, account.authToken, '/api/telco/voice/inbound', call);
    assert.match(await routed.text(), /<Dial>\+12125550142<\/Dial>/);
    assert.equal(state.fetched, 1);
    const [asked] = state.seen.filter((s) => s.headers['webhook-id']);
    new StandardWebhook(created.body.data.secret).verify(asked.body, asked.headers as Record<string, string>);

    const seen: Seen[] = [];
    const port = await mutualTls(seen, '{"result":"Tuesday at 3 pm is free"}');
    const tool = await app.request('POST', `/api/agents/${agentId}/tools`, {
      token: owner,
      body: {
        name: 'calendar',
        description: 'Free slots',
        parameters: { type: 'object' },
        url: `https://127.0.0.1:${port}/tool`,
        credentials: {
          tls: { client_certificate: authority.client.cert, client_key: authority.client.key, ca: authority.ca },
        },
      },
    });
    assert.equal(tool.status, 201, tool.text);
    // The call is recorded right after the provider is answered; the tool is the agent's, so the call gets the agent.
    await eventually(
      async () =>
        (
          await app.sql(
            'UPDATE calls SET agent_id = $1 WHERE provider_call_id = $2 AND decided_by IS NOT NULL RETURNING id',
            [agentId, sid],
          )
        )[0],
    );
    const result = await postCallback(app.url, account.authToken, '/api/telco/voice/tool', {
      ...call,
      Sequence: '0',
      Tool: 'calendar',
      Arguments: '{}',
    });
    assert.deepEqual(await result.json(), {
      result: 'Tuesday at 3 pm is free',
      source: 'endpoint',
      fallback_reason: null,
      reason: null,
    });
    assert.equal(seen.at(-1)?.peer, 'switchboard-client');
  });

  it('names the credential field at fault, and changes nothing', async () => {
    const before = await app.fingerprint();
    const base = { title: 'bad credentials', url: 'https://hooks.example.com/x', events: ['agent.created'] };
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [
        { ...base, url: 'http://hooks.example.com/x', credentials: { tls: { ca: authority.ca } } },
        'credentials.tls',
        /need an https, amqps, rediss, mqtts or nats url/,
      ],
      [
        { ...base, credentials: { tls: { client_certificate: 'not a pem', client_key: authority.client.key } } },
        'credentials.tls.client_certificate',
        /PEM/,
      ],
      [
        {
          ...base,
          credentials: { tls: { client_certificate: authority.client.cert, client_key: authority.stranger.key } },
        },
        'credentials.tls.client_key',
        /private key of the client certificate/,
      ],
      [
        { ...base, credentials: { oauth2: { token_url: 'ftp://x', client_id: 'a', client_secret: 'b' } } },
        'credentials.oauth2.token_url',
        /http or https/,
      ],
      [
        { ...base, url: 'redis://127.0.0.1:6379/0?stream=s', credentials: { tls: { ca: authority.ca } } },
        'credentials.tls',
        /need an https, amqps, rediss, mqtts or nats url/,
      ],
    ];
    for (const [body, field, text] of cases) {
      const response = await app.request('POST', '/api/webhooks', { token: owner, body });
      assert.equal(response.status, 422, `${field}: ${response.text}`);
      assert.ok(response.body.errors[field], `${field} in ${JSON.stringify(response.body.errors)}`);
      assert.match(response.body.errors[field].join(' '), text);
    }
    assert.equal(await app.fingerprint(), before);
  });
});
