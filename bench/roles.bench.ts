import 'reflect-metadata';
import autocannon from 'autocannon';
import express from 'express';
import jwt from 'jsonwebtoken';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { createLogger } from '../src/observability/logger.js';
import { startTestApp, TEST_JWT_SECRET } from '../test/helpers/app.js';

// `npm run bench`: the same page of roles read three ways in one run:
//   REST     GET /api/roles (route table -> in-process GraphQL -> service -> ORM)
//   GraphQL  POST /graphql with the same operation
//   plain    an Express route in this file running the equivalent SQL with pg
// Prints requests/s, p50 and p99 latency and the ratios to plain; writes
// bench/results/roles.json and roles.md.

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

let stopEmbedded: (() => Promise<void>) | undefined;
if (!process.env.TEST_DATABASE_URL) {
  const dir = path.resolve('.data', `bench-postgres-${process.pid}`);
  const embedded = await startEmbeddedPostgres(dir, 'postgres', createLogger('silent'), { persistent: false });
  process.env.TEST_DATABASE_URL = embedded.adminUrl;
  stopEmbedded = () => embedded.stop();
}

const app = await startTestApp({ LOGIN_LIMIT_PER_IP: '100000/1m' });
const token = await app.login('owner@acme.test');
// More rows than one page, so the page is a real LIMIT/OFFSET read.
const [acme] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
await app.sql(`INSERT INTO roles (company_id, title, is_owner, created_at, updated_at)
  SELECT ?, 'Bench role ' || g, false, now() - g * interval '1 minute', now() FROM generate_series(1, 200) g`, [acme.id]);

const pool = new pg.Pool({ connectionString: app.running.databaseUrl, max: 10 });
const plain = express();
plain.get('/roles', async (req, res) => {
  const claims = jwt.verify((req.headers.authorization ?? '').slice(7), TEST_JWT_SECRET, { algorithms: ['HS256'] }) as { cid: number };
  const perPage = 15;
  const page = 1;
  const [rows, count] = await Promise.all([
    pool.query('SELECT id, title, created_at, updated_at FROM roles WHERE company_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3', [claims.cid, perPage, (page - 1) * perPage]),
    pool.query('SELECT count(*)::int AS total FROM roles WHERE company_id = $1', [claims.cid]),
  ]);
  const total = count.rows[0].total;
  res.json({
    success: true,
    data: {
      records: rows.rows.map((r) => ({ id: r.id, title: r.title, created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString() })),
      pagination: { total, current_page: page, per_page: perPage, last_page: Math.max(1, Math.ceil(total / perPage)), from: rows.rowCount ? 1 : null, to: rows.rowCount ? rows.rowCount : null },
    },
  });
});
const plainServer = plain.listen(0, '127.0.0.1');
await new Promise((resolve) => plainServer.once('listening', resolve));
const plainUrl = `http://127.0.0.1:${(plainServer.address() as AddressInfo).port}`;

const auth = { authorization: `Bearer ${token}` };
const query = 'query { roles(page: 1, perPage: 15) { records { id title createdAt updatedAt } pagination { total currentPage perPage lastPage from to } } }';

// The three answer the same page before anything is timed.
const restBody = await (await fetch(`${app.url}/api/roles`, { headers: auth })).json();
const plainBody = await (await fetch(`${plainUrl}/roles`, { headers: auth })).json();
if (JSON.stringify(restBody) !== JSON.stringify(plainBody)) throw new Error('REST and plain answers differ');

const scenarios = [
  { name: 'REST', url: `${app.url}/api/roles`, method: 'GET', headers: auth },
  { name: 'GraphQL', url: `${app.url}/graphql`, method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query }) },
  { name: 'plain', url: `${plainUrl}/roles`, method: 'GET', headers: auth },
];

const results: Record<string, { rps: number; p50: number; p99: number; non2xx: number }> = {};
for (const scenario of scenarios) {
  await autocannon({ ...scenario, connections: CONNECTIONS, duration: 2 }); // warm-up
  const result = await autocannon({ ...scenario, connections: CONNECTIONS, duration: DURATION });
  results[scenario.name] = { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx + result.errors };
  process.stdout.write(`${scenario.name.padEnd(8)} ${String(results[scenario.name].rps).padStart(6)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  errors ${results[scenario.name].non2xx}\n`);
}
const ratios = {
  restToPlain: Math.round((results.REST.rps / results.plain.rps) * 100) / 100,
  graphqlToPlain: Math.round((results.GraphQL.rps / results.plain.rps) * 100) / 100,
};
process.stdout.write(`ratio REST/plain ${ratios.restToPlain}  GraphQL/plain ${ratios.graphqlToPlain}\n`);

const report = { scenario: 'roles page (15 of 205 rows)', measuredAt: new Date().toISOString(), node: process.version, durationSeconds: DURATION, connections: CONNECTIONS, results, ratios };
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/roles.json', `${JSON.stringify(report, null, 2)}\n`);
writeFileSync('bench/results/roles.md', [
  `# Roles page: REST vs GraphQL vs plain (${report.measuredAt.slice(0, 10)})`,
  '',
  `${DURATION} s per scenario, ${CONNECTIONS} connections, Node ${process.version}, 2 cores.`,
  '',
  '| path | req/s | p50 ms | p99 ms | errors |',
  '|---|---|---|---|---|',
  ...Object.entries(results).map(([name, r]) => `| ${name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.non2xx} |`),
  '',
  `REST/plain = ${ratios.restToPlain}, GraphQL/plain = ${ratios.graphqlToPlain}`,
  '',
].join('\n'));

plainServer.close();
await pool.end();
await app.close();
await stopEmbedded?.();
