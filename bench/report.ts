import { existsSync, readFileSync, writeFileSync } from 'node:fs';

// docs/performance.md, written from bench/results/ at the end of every `npm run bench` (and by
// `node dist/bench/report.js`): the current table of each part and how to reproduce it. The history is git's.

const PARTS: Array<[string, string]> = [
  ['api', 'REST, GraphQL and hand-written routes: reads, a write, the rate limits'],
  ['limits', 'the rate limits on and off'],
  ['deep-page', 'a deep page against the first'],
  ['tracing', 'tracing on and off'],
  ['peer', 'Switchboard beside the graphile-worker delivery peer, each through its own API'],
  [
    'tail',
    "the API's tail at 200 writes a second with a webhook: each suspect measured, the workers as deployed, " +
      'at low priority and paused, and the floor (a bare writer)',
  ],
  ['webhooks', "the delivery engine against the bench's own graphile-worker baseline"],
  ['engine-orm', "the engine's claim and settle, one statement each, against an entity form"],
  ['leads', "a campaign's leads in bulk: a number's time zones, and a CSV import"],
  ['retention', "the delivery log's retention on 10 million attempts, row by row and by partition"],
  ['dialer', 'a campaign of 10,000 leads dialed: the cap, the pace, the cost of a dial, the hours opening'],
  ['stats', 'endpoint health: its cost to the engine, and its answer over a long history'],
  ['brokers', 'deliveries to RabbitMQ, NATS JetStream, Redis Streams and MQTT, and ordering per subject'],
  ['http-client', "a delivery's HTTP request: undici, as the product sends it, against node:http"],
  ['call-path', 'inbound calls decided by the company endpoint: what Switchboard adds, the deadline, the breaker'],
  ['filters', 'payload filters on and off'],
  ['overload', 'an overload with the database restarted'],
  ['statements', 'what one event costs PostgreSQL, statement by statement, this build against main before the house'],
  ['before-after', 'this build against main before the entities'],
];

export function writePerformanceDoc(): void {
  const sections = PARTS.filter(([name]) => existsSync(`bench/results/${name}.md`)).map(([name, what]) => {
    const body = readFileSync(`bench/results/${name}.md`, 'utf8').trim().replace(/^# /, '### ');
    return `## ${name}: ${what}\n\n\`npm run bench -- ${name}\`\n\n${body}\n`;
  });
  const doc = [
    '# Performance',
    '',
    '<!-- Written by `npm run bench` from bench/results/; edit bench/, not this file. -->',
    '',
    '`npm run bench` (over an hour in all; one part, from a minute to a quarter of an hour) builds the service,',
    'runs it in production mode on a fresh embedded PostgreSQL,',
    'generates load from a process of its own, and compares paths to the same answer side by side in one run: the REST',
    'route, `/graphql`, and the routes a careful engineer writes by hand on Express or Fastify with pg. Before timing,',
    'it checks that the paths answer the same bytes. The paths of a scenario alternate in rounds, so a slow moment of',
    'the machine falls on all of them; ratios are of the same run. `npm run bench -- <part>` runs one part. Each run',
    'writes `bench/results/<part>.json` and `.md`, and this page from them; the figures below are the last run of each',
    'part, with its date and commit.',
    '',
    ...sections,
  ].join('\n');
  writeFileSync('docs/performance.md', doc);
  writeScalingFigures();
}

const readResult = <T>(name: string): T | undefined =>
  existsSync(`bench/results/${name}.json`)
    ? (JSON.parse(readFileSync(`bench/results/${name}.json`, 'utf8')) as T)
    : undefined;

interface StatementsResult {
  commit: string;
  machine: string;
  loads: Record<string, { postgresCpuUsPer: number; statementsPer: number }>;
}
interface RetentionResult {
  commit: string;
  attempts: number;
  purges: Array<{ form: string; seconds: number; cpuSeconds: number; walMiB: number }>;
}
interface EngineResult {
  commit: string;
  rounds: Array<{ form: string; perSecond: number }>;
}

/** docs/scaling.md's block of figures, between its markers, from the statements, retention and engine-orm parts. */
function writeScalingFigures(): void {
  const path = 'docs/scaling.md';
  if (!existsSync(path)) return;
  const statements = readResult<StatementsResult>('statements');
  const retention = readResult<RetentionResult>('retention');
  const engine = readResult<EngineResult>('engine-orm');
  const rows: string[] = [];
  const perCore = (us: number, cores: number) => Math.round((cores * 1e6) / us).toLocaleString('en-US');
  if (statements) {
    const write = statements.loads['fan-out 1, now'];
    const delivery = statements.loads['fan-out 20, now'];
    rows.push(
      `| PostgreSQL CPU per write with its one delivery | ${write.postgresCpuUsPer} µs, ${write.statementsPer} ` +
        `statements | statements, ${statements.commit} |`,
      `| PostgreSQL CPU per delivery at a fan-out of 20 | ${delivery.postgresCpuUsPer} µs, ` +
        `${delivery.statementsPer} statements | statements, ${statements.commit} |`,
      ...[1, 2, 8, 32].map(
        (cores) =>
          `| a primary of ${cores} core${cores > 1 ? 's' : ''} saturates at, writes a second (one delivery each) / ` +
          `deliveries a second (fan-out 20) | ${perCore(write.postgresCpuUsPer, cores)} / ` +
          `${perCore(delivery.postgresCpuUsPer, cores)} | from the two above |`,
      ),
    );
  }
  if (engine) {
    const plain = engine.rounds.filter((r) => r.form === 'plain').map((r) => r.perSecond);
    rows.push(
      `| the engine's claims and settles a second, 100 at a time, per round | ${plain.join(', ')} | engine-orm, ${engine.commit} |`,
    );
  }
  if (retention) {
    for (const p of retention.purges)
      rows.push(
        `| retention of the oldest days of ${retention.attempts.toLocaleString('en-US')} attempts, ${p.form}: time, ` +
          `PostgreSQL CPU, WAL | ${p.seconds} s, ${p.cpuSeconds} s, ${p.walMiB} MiB | retention, ${retention.commit} |`,
      );
  }
  const block = [
    '| measure | figure | bench part, commit |',
    '|---|---|---|',
    ...rows,
    '',
    statements ? `Machine: ${statements.machine}.` : 'No figures yet: run `npm run bench`.',
  ].join('\n');
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf('<!-- figures');
  const end = text.indexOf('<!-- /figures -->');
  if (start < 0 || end < 0) return;
  const head = text.slice(0, text.indexOf('\n', start) + 1);
  writeFileSync(path, `${head}${block}\n${text.slice(end)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) writePerformanceDoc();
