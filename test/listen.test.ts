import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { DEMO_PASSWORD } from '../src/seed/demo.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually, Receiver } from './helpers/receiver.js';

// `npm run listen -- --forward-to <url>`: the command in a process of its
// own, the service in this one, a real receiver on loopback behind the
// command, and standardwebhooks verifying what reached it.

let app: TestApp;
let token: string;
const children: ChildProcess[] = [];

before(async () => {
  app = await startTestApp({ WEBHOOK_RETRY_DELAYS: '500ms,500ms,500ms,500ms' });
  token = await app.login('owner@acme.test');
});
after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await app?.close();
});

/** The command as a developer runs it, signed in with the demo owner's email and password unless env says otherwise. */
function listenCommand(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [path.resolve('dist/src/listen/cli.js'), ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      SWITCHBOARD_URL: app.url,
      SWITCHBOARD_EMAIL: 'owner@acme.test',
      SWITCHBOARD_PASSWORD: DEMO_PASSWORD,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

async function ready(command: ReturnType<typeof listenCommand>): Promise<{ webhookId: number; secret: string }> {
  const match = await eventually(
    async () => /session webhook (\d+), signing secret (whsec_\S+)\)/.exec(command.stdout()) ?? undefined,
    15_000,
    `the command to be ready (${command.stderr()})`,
  );
  return { webhookId: Number(match[1]), secret: match[2] };
}

describe('npm run listen', () => {
  it(
    'forwards each delivery byte for byte, signed, to the local URL; prints a line; the local answer is ' +
      'the attempt in the session webhook log; Ctrl-C ends it',
    async () => {
      const local = await new Receiver().start();
      local.answer = (_request, i) => (i === 1 ? { status: 500, body: 'not yet' } : { status: 204 });
      try {
        const command = listenCommand(['--forward-to', `${local.url}/hook`, '--events', 'agent.created,agent.updated']);
        const { webhookId, secret } = await ready(command);
        const session = await app.request('GET', `/api/webhooks/${webhookId}`, { token });
        assert.equal(session.status, 200);
        assert.equal(session.body.data.url, `listen:${local.url}/hook`);
        assert.deepEqual(session.body.data.events, ['agent.created', 'agent.updated']);

        const created = await app.request('POST', '/api/agents', { token, body: { name: 'Heard locally' } });
        assert.equal(created.status, 201);
        await eventually(async () => (local.received.length >= 1 ? true : undefined), 10_000, 'the forwarded delivery');
        const [first] = local.received;
        assert.equal(first.path, '/hook');
        const verified = new StandardWebhook(secret).verify(first.body, first.headers as Record<string, string>) as {
          event: string;
          data: { name: string };
        };
        assert.equal(verified.event, 'agent.created');
        assert.equal(verified.data.name, 'Heard locally');
        const deliveryId = String(first.headers['webhook-id']);
        assert.match(
          await eventually(
            async () => new RegExp(`agent\\.created  ${deliveryId}  attempt 1  -> 204`).exec(command.stdout())?.[0],
          ),
          /-> 204/,
        );
        const delivery = await eventually(
          async () => {
            const found = (await app.request('GET', `/api/webhooks/deliveries/${deliveryId}`, { token })).body.data;
            return found?.status === 'succeeded' ? found : undefined;
          },
          10_000,
          `the delivery to be recorded as succeeded (${command.stderr()})`,
        );
        assert.deepEqual(
          delivery.attempts.map((a: { number: number; status_code: number }) => [a.number, a.status_code]),
          [[1, 204]],
        );

        // A local failure is the attempt's: retried on the schedule, through the same session.
        const [agent] = await app.sql("SELECT id FROM agents WHERE name = 'Heard locally'");
        assert.equal(
          (await app.request('PUT', `/api/agents/${agent.id}`, { token, body: { name: 'Heard again' } })).status,
          200,
        );
        await eventually(
          async () => (local.received.length >= 3 ? true : undefined),
          15_000,
          'the failed attempt and its retry',
        );
        const retried = String(local.received[1].headers['webhook-id']);
        assert.equal(String(local.received[2].headers['webhook-id']), retried);
        assert.equal(local.received[2].body, local.received[1].body, 'the same bytes on the retry');
        assert.match(command.stdout(), new RegExp(`agent\\.updated  ${retried}  attempt 1  -> 500`));
        const settled = await eventually(
          async () => {
            const found = (await app.request('GET', `/api/webhooks/deliveries/${retried}`, { token })).body.data;
            return found?.status === 'succeeded' ? found : undefined;
          },
          10_000,
          'the retry to be recorded',
        );
        assert.deepEqual(
          settled.attempts.map((a: { status_code: number; response_body: string | null }) => [
            a.status_code,
            a.response_body,
          ]),
          [
            [500, 'not yet'],
            [204, ''],
          ],
        );

        // Ctrl-C: the session ends and its webhook is deleted.
        command.child.kill('SIGINT');
        assert.equal(await command.exited, 0);
        assert.match(command.stdout(), /Session ended; its webhook is deleted\.\n$/);
        await eventually(
          async () =>
            (await app.request('GET', `/api/webhooks/${webhookId}`, { token })).status === 404 ? true : undefined,
          10_000,
          'the session webhook to go',
        );
        assert.equal((await app.sql('SELECT count(*)::int AS n FROM listen_sessions'))[0].n, 0);
        assert.equal(local.violations.length, 0, local.violations.join('\n'));
      } finally {
        await local.close();
      }
    },
  );

  it('refuses a bad URL, a caller without manage-webhooks, and answers for an unknown key or a bad status, changing nothing', async () => {
    const bad = listenCommand(['--forward-to', 'ftp://example.com/hook']);
    assert.equal(await bad.exited, 2);
    assert.match(bad.stderr(), /--forward-to must be an http or https URL \(got "ftp:\/\/example\.com\/hook"\)/);
    const missing = listenCommand([]);
    assert.equal(await missing.exited, 2);
    assert.match(missing.stderr(), /--forward-to is required\.\nUsage: npm run listen/);

    const viewer = await app.userWith(['view-webhooks'], 'listen viewer');
    const refused = listenCommand(['--forward-to', 'http://127.0.0.1:9/hook', '--events', 'agent.created'], {
      SWITCHBOARD_TOKEN: viewer,
    });
    assert.equal(await refused.exited, 1);
    assert.match(refused.stderr(), /The session was refused: This action is unauthorized\./);
    const wrongPassword = listenCommand(['--forward-to', 'http://127.0.0.1:9/hook'], { SWITCHBOARD_PASSWORD: 'wrong' });
    assert.equal(await wrongPassword.exited, 1);
    assert.match(wrongPassword.stderr(), /Could not sign in at http:\/\/127\.0\.0\.1:\d+: /);

    const answer = (variables: Record<string, unknown>) =>
      app.graphql(
        'mutation($key: ID!, $status: Int, $error: String) { answerListenDelivery(key: $key, status: $status, error: $error) }',
        variables,
        token,
      );
    const unknown = await answer({ key: 'lx_unknown', status: 200 });
    assert.equal(unknown.body.errors[0].extensions.code, 'NOT_FOUND');
    const badStatus = await answer({ key: 'lx_unknown', status: 42 });
    assert.equal(badStatus.body.errors[0].extensions.code, 'BAD_USER_INPUT');
    assert.match(badStatus.body.errors[0].message, /The status field must be an HTTP status from 100 to 599\./);
    const nothing = await answer({ key: 'lx_unknown' });
    assert.match(nothing.body.errors[0].message, /The error field is required when there is no status\./);
    assert.equal((await app.sql("SELECT count(*)::int AS n FROM webhooks WHERE url LIKE 'listen:%'"))[0].n, 0);
  });

  it("a session whose process stopped saying it is alive is swept by the reconciler, and another company's key is not found", async () => {
    const local = await new Receiver().start();
    try {
      const command = listenCommand(['--forward-to', `${local.url}/hook`, '--events', 'agent.created']);
      const { webhookId } = await ready(command);
      // Gamma cannot answer for Acme's session.
      await app.sql(
        "INSERT INTO listen_exchanges (key, webhook_id, company_id, request) SELECT 'lx_acme', $1, company_id, '{}' FROM webhooks WHERE id = $2",
        [webhookId, webhookId],
      );
      const gamma = await app.login('owner@gamma.test');
      const foreign = await app.graphql('mutation { answerListenDelivery(key: "lx_acme", status: 200) }', {}, gamma);
      assert.equal(foreign.body.errors[0].extensions.code, 'NOT_FOUND');
      assert.equal(
        (await app.sql("SELECT answered_at FROM listen_exchanges WHERE key = 'lx_acme'"))[0].answered_at,
        null,
      );
      const mine = await app.graphql('mutation { answerListenDelivery(key: "lx_acme", status: 200) }', {}, token);
      assert.equal(mine.body.data.answerListenDelivery, true);
      const again = await app.graphql('mutation { answerListenDelivery(key: "lx_acme", status: 200) }', {}, token);
      assert.equal(again.body.errors[0].extensions.code, 'CONFLICT');

      await app.sql("UPDATE listen_sessions SET alive_until = now() - interval '1 second' WHERE webhook_id = $1", [
        webhookId,
      ]);
      await app.running.services.deliverer.reconcile();
      assert.equal((await app.request('GET', `/api/webhooks/${webhookId}`, { token })).status, 404);
      command.child.kill('SIGINT');
      assert.equal(await command.exited, 0);
    } finally {
      await local.close();
    }
  });
});
