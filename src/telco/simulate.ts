import { parseArgs } from 'node:util';
import { demoAccountSid, demoAuthToken } from './inventory.js';
import { playScenario, playSmsScenario, SCENARIOS, SMS_SCENARIOS } from './scenarios.js';

// `npm run simulate -- <scenario> [options]`: plays a provider scenario
// against a running service, with the demo provider credentials by default.

const HELP = `Usage: npm run simulate -- <scenario> [options]

Scenarios:
${Object.entries(SCENARIOS)
  .map(([name, s]) => `  ${name.padEnd(14)} ${s.description}`)
  .join('\n')}
${Object.entries(SMS_SCENARIOS)
  .map(([name, description]) => `  ${name.padEnd(14)} ${description}`)
  .join('\n')}

Options:
  --url <url>          the service (default http://localhost:$PORT, PORT defaulting to 3000)
  --company <key>      demo company whose provider account signs: acme (default), beta, gamma
  --account-sid <sid>  another provider account (with --auth-token)
  --auth-token <token>
  --number <e164>      the company's number on the call (default: its first number, read over the API with the demo login)
  --contact <e164>     the other party (default +14155550123)
  --book               the call books an appointment
  --delay <ms>         pause between callbacks (default 500)
  --tool <name>        tool-call: the agent's tool to call (default check_availability)
  --tool-arguments <json>  tool-call: its arguments (default {"day":"Tuesday"})
  --decision-url <url> inbound-call: first make this the company's decision endpoint (over the API, with the demo
                       login; fallback: the number's agent), then play the call it routes
`;

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string', default: `http://localhost:${process.env.PORT || '3000'}` },
      company: { type: 'string', default: 'acme' },
      'account-sid': { type: 'string' },
      'auth-token': { type: 'string' },
      number: { type: 'string' },
      contact: { type: 'string' },
      book: { type: 'boolean', default: false },
      delay: { type: 'string', default: '500' },
      'decision-url': { type: 'string' },
      tool: { type: 'string' },
      'tool-arguments': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const name = positionals[0];
  if (values.help || !name || !(SCENARIOS[name] || SMS_SCENARIOS[name])) {
    process.stdout.write(HELP);
    process.exit(values.help ? 0 : 64);
  }
  let base: URL;
  try {
    base = new URL(values.url!);
    if (!['http:', 'https:'].includes(base.protocol)) throw new Error();
  } catch {
    process.stderr.write(`simulate: --url must be an http(s) URL of the service (got "${values.url}")\n`);
    process.exit(64);
  }
  values.url = base.toString().replace(/\/$/, '');
  target = values.url;
  const key = values.company!;
  const signIn = async () => {
    const login = await fetch(`${values.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `owner@${key}.test`, password: 'switchboard' }),
    });
    if (!login.ok) throw new Error(`cannot sign in as owner@${key}.test (${login.status})`);
    return ((await login.json()) as { token: string }).token;
  };
  const credentials = {
    url: values.url!,
    accountSid: values['account-sid'] ?? demoAccountSid(key),
    authToken: values['auth-token'] ?? demoAuthToken(key),
    contact: values.contact,
    delayMs: Number(values.delay),
    log: (line: string) => process.stdout.write(`  ${line}\n`),
  };
  if (SMS_SCENARIOS[name]) {
    const ids = await playSmsScenario(name, { ...credentials, bearer: await signIn() });
    process.stdout.write(
      `${name}: message ${ids.sent}${ids.reply ? `, reply ${ids.reply}` : ''} played; see GET /api/sms and the webhook delivery log.\n`,
    );
    return;
  }
  let number = values.number;
  if (!number) {
    const token = await signIn();
    const list = await fetch(`${values.url}/api/phone-numbers?per_page=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await list.json()) as { data?: { records?: Array<{ phone_no: string }> } };
    number = body.data?.records?.[0]?.phone_no;
    if (!number) throw new Error(`owner@${key}.test has no phone number; give --number`);
  }
  const decisionUrl = values['decision-url'];
  if (decisionUrl) await useDecisionUrl(values.url!, await signIn(), decisionUrl);
  const callSid = await playScenario(name, {
    ...credentials,
    number,
    book: values.book,
    tool: values.tool,
    toolArguments: values['tool-arguments'],
  });
  process.stdout.write(
    `${name}: call ${callSid} on ${number} played; see the AI dashboard and Setup > Webhooks > delivery log.\n`,
  );
}

/** Makes `url` the company's decision endpoint: updates the company's own, or creates it. */
async function useDecisionUrl(service: string, token: string, url: string): Promise<void> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const list = await fetch(`${service}/api/decision-endpoints`, { headers });
  const endpoints =
    ((await list.json()) as { data?: Array<{ id: string; phone_number_id: string | null }> }).data ?? [];
  const own = endpoints.find((e) => e.phone_number_id === null);
  const response = await fetch(`${service}/api/decision-endpoints${own ? `/${own.id}` : ''}`, {
    method: own ? 'PUT' : 'POST',
    headers,
    body: JSON.stringify({ url, fallback_action: 'answer' }),
  });
  const body = (await response.json()) as { message?: string; data?: { secret?: string } };
  if (!response.ok) throw new Error(`--decision-url: ${response.status} ${body.message ?? ''}`);
  process.stdout.write(`  decision endpoint: ${url}${body.data?.secret ? ` (secret ${body.data.secret})` : ''}\n`);
}

let target = '';

/** What went wrong, with the cause a bare "fetch failed" hides (refused, not found, timed out) and the URL tried. */
function explain(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  if (message === 'fetch failed') {
    const why =
      cause?.code === 'ECONNREFUSED'
        ? 'nothing is listening there (is the service started? set PORT or --url to where it runs)'
        : (cause?.code ?? cause?.message ?? 'the request failed');
    return `cannot reach the service at ${target}: ${why}`;
  }
  return message;
}

main().catch((error) => {
  process.stderr.write(`simulate: ${explain(error)}\n`);
  process.exit(1);
});
