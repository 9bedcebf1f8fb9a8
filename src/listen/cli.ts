import { createClient } from 'graphql-ws';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import type { ListenRequest } from '../webhooks/tools/listen.js';

// `npm run listen -- --forward-to http://localhost:4000/hook`: Switchboard's
// webhooks on this machine, wherever the service runs (the Stripe CLI's
// `listen --forward-to`). It opens a session webhook for the chosen events
// over the live channel (GraphQL subscription `listen`), POSTs each delivery
// byte for byte, with its signature headers, to the local URL, prints one
// line per delivery, and reports the local answer back, where it is the
// attempt's result in the session webhook's log (a failure is retried on the
// usual schedule). Ctrl-C ends the session and deletes its webhook.
//
// Signs in with SWITCHBOARD_TOKEN (or --token), or with SWITCHBOARD_EMAIL and
// SWITCHBOARD_PASSWORD; reaches SWITCHBOARD_URL (or --url, default
// http://localhost:3000).

const USAGE =
  'Usage: npm run listen -- --forward-to <url> [--events call.ended,sms.received] [--url <switchboard url>] [--token <token>]';
/** What the local endpoint has to answer in, below the service's own attempt timeout. */
const LOCAL_TIMEOUT_MS = 9_000;

/** One attempt to forward, as the listen subscription gives it. */
type Delivery = ListenRequest;

const fail = (message: string, code = 2): never => {
  process.stderr.write(`${message}\n${code === 2 ? `${USAGE}\n` : ''}`);
  process.exit(code);
};

let options: { 'forward-to'?: string; events?: string; url?: string; token?: string };
try {
  ({ values: options } = parseArgs({
    options: {
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
    },
  }));
} catch (error) {
  fail((error as Error).message);
}
const forwardTo = options!['forward-to'] ?? fail('--forward-to is required.');
if (!/^https?:$/.test(URL.parse(forwardTo)?.protocol ?? ''))
  fail(`--forward-to must be an http or https URL (got "${forwardTo}").`);
const base = (options!.url ?? process.env.SWITCHBOARD_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
if (!/^https?:$/.test(URL.parse(base)?.protocol ?? '')) fail(`--url must be an http or https URL (got "${base}").`);

async function graphql<T>(
  token: string | undefined,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const result = (await response.json()) as { data?: T; errors?: Array<{ message: string }> };
  if (result.errors?.length) throw new Error(result.errors[0].message);
  return result.data as T;
}

async function signIn(): Promise<string> {
  const token = options.token ?? process.env.SWITCHBOARD_TOKEN;
  if (token) return token;
  const email = process.env.SWITCHBOARD_EMAIL;
  const password = process.env.SWITCHBOARD_PASSWORD;
  if (!email || !password)
    fail('Give a token (SWITCHBOARD_TOKEN or --token), or SWITCHBOARD_EMAIL and SWITCHBOARD_PASSWORD.');
  const data = await graphql<{ login: { token: string } }>(
    undefined,
    'mutation($email: String!, $password: String!) { login(email: $email, password: $password) { token } }',
    { email, password },
  );
  return data.login.token;
}

/** POSTs one delivery as it was signed; the local status, or what went wrong. */
async function forward(
  delivery: Delivery,
): Promise<{ status: number | null; error: string | null; responseBody: string | null; ms: number }> {
  const started = Date.now();
  try {
    const response = await fetch(forwardTo, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(LOCAL_TIMEOUT_MS),
    });
    const text = await response.text();
    return { status: response.status, error: null, responseBody: text.slice(0, 1024), ms: Date.now() - started };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return {
      status: null,
      error: (cause ?? (error as Error).message).slice(0, 255),
      responseBody: null,
      ms: Date.now() - started,
    };
  }
}

const token = await signIn().catch((error: Error) => fail(`Could not sign in at ${base}: ${error.message}`, 1));
const events = options!.events
  ? options!.events
      .split(',')
      .map((name) => name.trim().replace(/\./g, '_'))
      .filter(Boolean)
  : (
      await graphql<{ webhookEventTypes: Array<{ name: string }> }>(token, '{ webhookEventTypes { name } }').catch(
        (error: Error) => fail(`Could not read the event types: ${error.message}`, 1),
      )
    ).webhookEventTypes.map((t) => t.name);

const client = createClient({
  url: `${base.replace(/^http/, 'ws')}/graphql`,
  webSocketImpl: WebSocket,
  connectionParams: { authorization: `Bearer ${token}` },
  retryAttempts: 0,
});
let stopping = false;
const stop = () => {
  stopping = true;
  void client.dispose();
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

const query = `subscription($events: [WebhookEvent!]!, $forwardTo: String!) {
  listen(events: $events, forwardTo: $forwardTo) {
    session { webhook { id events } secret }
    delivery { key deliveryId event attempt headers body }
  }
}`;
await new Promise<void>((resolve) => {
  client.subscribe<{
    listen: {
      session: { webhook: { id: number; events: string[] }; secret: string } | null;
      delivery: Delivery | null;
    };
  }>(
    { query, variables: { events, forwardTo } },
    {
      next: ({ data, errors }) => {
        if (errors?.length) fail(`The session was refused: ${errors[0].message}`, 1);
        const message = data?.listen;
        if (message?.session) {
          const { webhook, secret } = message.session;
          process.stdout.write(
            `Ready. Forwarding ${webhook.events.map((e) => e.replace(/_/g, '.')).join(', ')} to ${forwardTo} ` +
              `(session webhook ${webhook.id}, signing secret ${secret}). Ctrl-C to stop.\n`,
          );
        }
        const delivery = message?.delivery;
        if (!delivery) return;
        void (async () => {
          const answer = await forward(delivery);
          const outcome = answer.status !== null ? String(answer.status) : `failed: ${answer.error}`;
          process.stdout.write(
            `${new Date().toISOString()}  ${delivery.event.replace(/_/g, '.')}  ${delivery.deliveryId}  attempt ` +
              `${delivery.attempt}  -> ${outcome} (${answer.ms} ms)\n`,
          );
          await graphql(
            token,
            'mutation($key: ID!, $status: Int, $error: String, $responseBody: String) { ' +
              'answerListenDelivery(key: $key, status: $status, error: $error, responseBody: $responseBody) }',
            { key: delivery.key, status: answer.status, error: answer.error, responseBody: answer.responseBody },
          ).catch((error: Error) =>
            process.stderr.write(`The answer to ${delivery.deliveryId} was not recorded: ${error.message}\n`),
          );
        })();
      },
      error: (error) => {
        if (stopping) return resolve();
        const text = Array.isArray(error)
          ? (error as Array<{ message: string }>).map((e) => e.message).join('; ')
          : error instanceof Error
            ? error.message
            : `the connection closed (${(error as { code?: number }).code ?? 'unknown'})`;
        fail(`The session ended: ${text}`, 1);
      },
      complete: () => resolve(),
    },
  );
});
process.stdout.write('Session ended; its webhook is deleted.\n');
process.exit(0);
