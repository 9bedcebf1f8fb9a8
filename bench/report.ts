import { existsSync, readFileSync, writeFileSync } from 'node:fs';

// docs/performance.md, written from bench/results/ at the end of every `npm run bench` (and by
// `node dist/bench/report.js`): the current table of each part and how to reproduce it. The history is git's.

const PARTS: Array<[string, string]> = [
  ['api', 'REST, GraphQL and hand-written routes: reads, a write, the rate limits'],
  ['limits', 'the rate limits on and off'],
  ['deep-page', 'a deep page against the first'],
  ['tracing', 'tracing on and off'],
  ['peer', 'Switchboard beside the graphile-worker delivery peer, each through its own API'],
  ['webhooks', "the delivery engine against the bench's own graphile-worker baseline"],
  ['engine-orm', "the engine's claim and settle, one statement each, against an entity form"],
  ['leads', "a campaign's leads in bulk: a number's time zones, and a CSV import"],
  ['dialer', 'a campaign of 10,000 leads dialed: the cap, the pace, the cost of a dial, the hours opening'],
  ['stats', 'endpoint health: its cost to the engine, and its answer over a long history'],
  ['brokers', 'deliveries to RabbitMQ, NATS JetStream, Redis Streams and MQTT, and ordering per subject'],
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
    '`npm run bench` (about 20 minutes) builds the service, runs it in production mode on a fresh embedded PostgreSQL,',
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
}

if (import.meta.url === `file://${process.argv[1]}`) writePerformanceDoc();
