import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { loadConfig } from '../src/config/config.js';
import { WS_LIMITS } from '../src/graphql/live-server.js';
import { createLogger } from '../src/observability/logger.js';
import { startService, type Running } from '../src/platform/runtime.js';
import { startTestApp, type TestApp, TEST_API_LIMITS } from './helpers/app.js';
import { eventually, sleep } from './helpers/receiver.js';

// Subscriptions under the rules /graphql over HTTP keeps: the same document
// limits, a bounded message size (smaller before the connection is
// authenticated), one subscribe's error never ends the connection, only live
// subscriptions count, and a change to who may do what ends the affected
// subscriptions at every process within a second.

let app: TestApp;
let second: Running;
const lines: string[] = [];
const clients: Client[] = [];
const sockets: WebSocket[] = [];

const connect = (baseUrl: string, token: string) => {
  const client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
  });
  clients.push(client);
  return client;
};

interface Outcome {
  received: unknown[];
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
  closed?: { code: number; reason: string };
  done: boolean;
  endedAt?: number;
}

function collect(client: Client, query: string): Outcome {
  const outcome: Outcome = { received: [], done: false };
  client.subscribe<unknown>(
    { query },
    {
      next: (message) => {
        if (message.data) outcome.received.push(message.data);
        if (message.errors) outcome.errors = message.errors as Outcome['errors'];
      },
      error: (error) => {
        outcome.endedAt = Date.now();
        if (Array.isArray(error)) outcome.errors = error;
        else outcome.closed = { code: (error as { code: number }).code, reason: (error as { reason: string }).reason };
      },
      complete: () => {
        outcome.endedAt ??= Date.now();
        outcome.done = true;
      },
    },
  );
  return outcome;
}

/** A raw graphql-ws socket: what it was told, and how it closed. */
async function rawSocket(baseUrl: string) {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  sockets.push(socket);
  const messages: Array<Record<string, any>> = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  socket.on('error', () => undefined);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return { socket, messages, closed };
}

const bigString = (bytes: number) => 'x'.repeat(bytes);
const LIVE = 'subscription { events { type } }';

before(async () => {
  app = await startTestApp();
  // A second API process on the same database: revocations reach it only through NOTIFY.
  second = await startService(
    loadConfig({
      ...TEST_API_LIMITS,
      NODE_ENV: 'test',
      DATABASE_URL: app.running.databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      JWT_SECRET: app.config.jwtSecret,
      APP_KEY: app.config.appKey.toString('base64'),
      LOG_LEVEL: 'info',
      PROCESS_ROLE: 'api',
    }),
    createLogger('info', (line) => void lines.push(line)),
  );
});
after(async () => {
  for (const client of clients) await client.dispose();
  for (const socket of sockets) socket.terminate();
  await second?.stop();
  await app?.close();
});

describe('subscriptions under the HTTP rules', () => {
  it(
    'refuses 200 aliases, a document over the token limit and a syntax error with an error message each; ' +
      'the connection and its live subscription go on',
    async () => {
      const client = connect(second.url, await app.login('owner@acme.test'));
      const live = collect(client, 'subscription { events(types: [agent_created]) { type } }');
      await eventually(async () => (second.services.live.size === 1 ? true : undefined), 5000, 'the live subscription');

      const aliases = collect(
        client,
        `query { ${Array.from({ length: 200 }, (_, i) => `a${i}: me { user { id } }`).join(' ')} }`,
      );
      const tokens = collect(
        client,
        `query { ${Array.from({ length: 5_001 }, () => 'me { user { id } }').join(' ')} }`,
      );
      const syntax = collect(client, 'subscription { events { type ');
      await eventually(
        async () => (aliases.errors && tokens.errors && syntax.errors ? true : undefined),
        5000,
        'three refusals',
      );
      assert.equal(aliases.errors![0].extensions?.code, 'QUERY_TOO_COMPLEX');
      assert.match(aliases.errors![0].message, /aliases me more than 50 times/);
      assert.equal(tokens.errors![0].extensions?.code, 'QUERY_TOO_COMPLEX');
      assert.match(tokens.errors![0].message, /more than 10000 tokens/);
      assert.match(syntax.errors![0].message, /Syntax Error/);
      assert.equal(syntax.errors![0].extensions?.code, 'GRAPHQL_PARSE_FAILED');
      assert.deepEqual([aliases.received, tokens.received], [[], []], 'nothing executed');

      // The same documents over HTTP are refused the same way.
      const http = await app.request('POST', '/graphql', {
        token: await app.login('owner@acme.test'),
        body: { query: `query { ${Array.from({ length: 5_001 }, () => 'me { user { id } }').join(' ')} }` },
      });
      assert.equal(http.status, 400);
      assert.equal(http.body.errors[0].extensions.code, 'QUERY_TOO_COMPLEX');

      const agent = await app.request('POST', '/api/agents', {
        token: await app.login('owner@acme.test'),
        body: { name: 'Live After Refusals' },
      });
      assert.ok(agent.status < 300, agent.text);
      await eventually(
        async () => (live.received.length === 1 ? true : undefined),
        5000,
        'the live subscription to hear on',
      );
      assert.equal(live.closed, undefined, 'the connection was never closed');
      assert.ok(!lines.some((line) => !line.startsWith('{')), 'every line the process wrote is JSON');
    },
  );

  it('counts only live subscriptions: ten refused subscribes leave room for ten live ones', async () => {
    const client = connect(second.url, await app.login('owner@acme.test'));
    const refused = Array.from({ length: 12 }, (_, i) =>
      collect(client, i % 2 ? 'subscription { events(types: [no_such]) { type } }' : 'subscription { nope }'),
    );
    await eventually(async () => (refused.every((r) => r.errors) ? true : undefined), 5000, 'the refusals');
    const before = second.services.live.size;
    const live = Array.from({ length: WS_LIMITS.subscriptions }, () => collect(client, LIVE));
    await eventually(
      async () => (second.services.live.size === before + WS_LIMITS.subscriptions ? true : undefined),
      5000,
      'ten live',
    );
    const eleventh = collect(client, LIVE);
    await eventually(async () => (eleventh.errors ? true : undefined), 5000, 'the eleventh refused');
    assert.match(eleventh.errors![0].message, /at most 10 subscriptions/);
    assert.ok(live.every((s) => !s.errors && !s.closed));
  });

  it('reads at most 16 KiB before the connection is authenticated and 1 MiB after, closing with 1009 before parsing', async () => {
    const rssBefore = process.memoryUsage().rss;
    const early = await rawSocket(second.url);
    early.socket.send(
      JSON.stringify({ type: 'connection_init', payload: { padding: bigString(WS_LIMITS.beforeInit + 1) } }),
    );
    assert.equal((await early.closed).code, 1009);

    const token = await app.login('owner@acme.test');
    const late = await rawSocket(second.url);
    late.socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }));
    await eventually(
      async () => (late.messages.some((m) => m.type === 'connection_ack') ? true : undefined),
      5000,
      'the ack',
    );
    // Past the early limit is fine once authenticated...
    late.socket.send(
      JSON.stringify({
        id: '1',
        type: 'subscribe',
        payload: { query: `query { me { user { id } } } # ${bigString(64 * 1024)}` },
      }),
    );
    await eventually(
      async () => (late.messages.some((m) => m.id === '1' && m.type === 'next') ? true : undefined),
      5000,
      'the answer',
    );
    // ...and past the message limit is not.
    late.socket.send(
      JSON.stringify({
        id: '2',
        type: 'subscribe',
        payload: { query: `query { me { user { id } } } # ${bigString(WS_LIMITS.message)}` },
      }),
    );
    assert.equal((await late.closed).code, 1009);
    assert.ok(!late.messages.some((m) => m.id === '2'), 'the oversized subscribe was never answered');
    const health = await fetch(`${second.url}/healthz`);
    assert.equal(health.status, 200);
    assert.ok(
      process.memoryUsage().rss - rssBefore < 200 * 1024 * 1024,
      'memory did not grow by the message size many times over',
    );
  });

  it('closes a socket that never authenticates, and one whose token is refused', async () => {
    const forged = await rawSocket(second.url);
    forged.socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: 'Bearer not.a.token' } }));
    assert.equal((await forged.closed).code, 4403);
    const early = await rawSocket(second.url);
    early.socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: LIVE } }));
    assert.equal((await early.closed).code, 4401, 'a subscribe before init');
  });
});

describe('what ends a subscription', () => {
  /** A new user of Acme with the named permissions: its token, id and role. */
  const newUser = async (slugs: string[]) => {
    const token = await app.userWith(slugs, 'live');
    const [user] = await app.sql('SELECT id, role_id FROM users ORDER BY id DESC LIMIT 1');
    return { token, id: user.id as number, role: user.role_id as number };
  };
  /** Subscribes on both processes, makes the change on the first, and checks both ended within a second with `code`. */
  const endsEverywhere = async (token: string, change: () => Promise<unknown>, code: string) => {
    const here = collect(connect(app.url, token), LIVE);
    const there = collect(connect(second.url, token), LIVE);
    const start = { here: app.running.services.live.size, there: second.services.live.size };
    await eventually(
      async () => (app.running.services.live.size >= 1 && second.services.live.size >= 1 ? true : undefined),
      5000,
      'both subscriptions',
    );
    await sleep(50);
    const changedAt = Date.now();
    await change();
    await eventually(async () => (here.endedAt && there.endedAt ? true : undefined), 3000, 'both subscriptions to end');
    for (const outcome of [here, there]) {
      assert.equal(outcome.errors?.[0]?.extensions?.code, code, JSON.stringify(outcome));
      assert.ok(outcome.endedAt! - changedAt < 1000, `ended ${outcome.endedAt! - changedAt} ms after the change`);
    }
    void start;
  };

  it('logout', async () => {
    const user = await newUser(['view-webhooks']);
    await endsEverywhere(
      user.token,
      () => app.request('POST', '/api/logout', { token: user.token }),
      'UNAUTHENTICATED',
    );
  });

  it("a permission removed from the user's role", async () => {
    const user = await newUser(['view-webhooks', 'view-role']);
    await endsEverywhere(
      user.token,
      () =>
        app.sql(
          "DELETE FROM role_permissions WHERE role_id = $1 AND permission_id = (SELECT id FROM permissions WHERE slug = 'view-webhooks')",
          [user.role],
        ),
      'FORBIDDEN',
    );
  });

  it('a role change to one without the permission', async () => {
    const user = await newUser(['view-webhooks']);
    const other = await newUser(['view-role']);
    await endsEverywhere(
      user.token,
      () => app.sql('UPDATE users SET role_id = $1 WHERE id = $2', [other.role, user.id]),
      'FORBIDDEN',
    );
  });

  it('the user deleted', async () => {
    const user = await newUser(['view-webhooks']);
    await endsEverywhere(user.token, () => app.sql('DELETE FROM users WHERE id = $1', [user.id]), 'UNAUTHENTICATED');
  });

  it("the user moved out of the company (the company's access ends)", async () => {
    const user = await newUser(['view-webhooks']);
    const [gamma] = await app.sql("SELECT id FROM companies WHERE name = 'Gamma Solar'");
    await endsEverywhere(
      user.token,
      () => app.sql('UPDATE users SET company_id = $1 WHERE id = $2', [gamma.id, user.id]),
      'UNAUTHENTICATED',
    );
  });

  it('a change that concerns someone else ends nothing', async () => {
    const user = await newUser(['view-webhooks']);
    const bystander = await newUser(['view-webhooks']);
    const sub = collect(connect(second.url, user.token), LIVE);
    await eventually(async () => (second.services.live.size >= 1 ? true : undefined), 5000, 'the subscription');
    await app.request('POST', '/api/logout', { token: bystander.token });
    await app.sql('DELETE FROM role_permissions WHERE role_id = $1', [bystander.role]);
    await sleep(500);
    assert.equal(sub.endedAt, undefined);
  });
});
