import { apiBench, limitsBench } from './api.bench.js';
import { deepPageBench } from './deep-page.bench.js';
import { benchApp, benchDatabase } from './harness.js';
import { overloadBench } from './overload.bench.js';
import { webhooksBench } from './webhooks.bench.js';
import { filtersBench } from './filters.bench.js';
import { tracingBench } from './tracing.bench.js';
import { writePerformanceDoc } from './report.js';
import { beforeAfterBench } from './before-after.bench.js';
import { statementsBench } from './statements.bench.js';
import { brokersBench } from './brokers.bench.js';
import { callPathBench } from './call-path.bench.js';
import { webhookStatsBench } from './webhook-stats.bench.js';
import { engineOrmBench } from './engine-orm.bench.js';
import { realPeerBench } from './real-peer.bench.js';
import { leadsBench } from './leads.bench.js';
import { dialerBench } from './dialer.bench.js';
import { retentionBench } from './retention.bench.js';
import { tailBench } from './tail.bench.js';
import { httpClientBench } from './http-client.bench.js';

// `npm run bench` runs every scenario, one after the other, each on its own fresh
// database; `npm run bench -- webhooks` (or api, deep-page, tracing, engine-orm, leads, retention, dialer, peer,
// tail, stats, brokers, call-path, filters, overload, statements, before-after, http-client) runs the ones named;
// `npm run bench -- limits` runs the rate limits' part of api alone.
// `BENCH_TAIL_ONLY=deployed,full-priority BENCH_ROUNDS=8 npm run bench -- tail` takes those conditions of tail alone
// (tail.bench.ts names them), in bench/results/tail-<conditions>.md, beside the whole part's.

// The services under test get the production pool size, not the test suite's small one.
process.env.TEST_POOL_SIZE ??= '10';
const only = process.argv.slice(2);
const wanted = (name: string) => only.length === 0 || only.includes(name);

const stopDatabase = await benchDatabase();
for (const [name, run] of [
  ['api', apiBench],
  ['deep-page', deepPageBench],
  ['tracing', tracingBench],
  ['engine-orm', engineOrmBench],
  ['leads', leadsBench],
  ['retention', retentionBench],
  ['limits', limitsBench],
] as const) {
  // `limits` is part of `api`; run alone only when named.
  if (name === 'limits' && !only.includes('limits')) continue;
  if (!wanted(name)) continue;
  process.stdout.write(`\n== ${name}\n`);
  const app = await benchApp();
  try {
    await run(app);
  } finally {
    await app.close();
  }
}
if (wanted('webhooks')) {
  process.stdout.write('\n== webhooks\n');
  await webhooksBench();
}
if (wanted('dialer')) {
  process.stdout.write('\n== dialer\n');
  await dialerBench();
}
if (wanted('peer')) {
  process.stdout.write('\n== peer\n');
  await realPeerBench();
}
if (wanted('tail')) {
  process.stdout.write('\n== tail\n');
  await tailBench();
}
if (wanted('stats')) {
  process.stdout.write('\n== stats\n');
  await webhookStatsBench();
}
if (wanted('brokers')) {
  process.stdout.write('\n== brokers\n');
  await brokersBench();
}
if (wanted('call-path')) {
  process.stdout.write('\n== call-path\n');
  await callPathBench();
}
if (wanted('filters')) {
  process.stdout.write('\n== filters\n');
  await filtersBench();
}
if (wanted('overload')) {
  process.stdout.write('\n== overload\n');
  await overloadBench();
}
if (wanted('statements')) {
  process.stdout.write('\n== statements\n');
  await statementsBench();
}
if (wanted('http-client')) {
  process.stdout.write('\n== http-client\n');
  await httpClientBench();
}
if (wanted('before-after')) {
  process.stdout.write('\n== before-after\n');
  await beforeAfterBench();
}
await stopDatabase();
writePerformanceDoc();
