import 'reflect-metadata';
import autocannon from 'autocannon';
import express, { type Express } from 'express';
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { createLogger } from '../src/observability/logger.js';
import { startTestApp, type TestApp } from '../test/helpers/app.js';

// What every benchmark shares: a seeded app on a fresh database, a plain
// Express + pg baseline, autocannon runs, and the report in bench/results/.

export const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

export interface Scenario {
  name: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Where a result comes from: the commit, the machine and the database it ran on. */
export function runInfo(): { commit: string; machine: string; database: string } {
  const commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  const dirty = execSync('git status --porcelain -- src bench test web :!bench/results', { encoding: 'utf8' }).trim() ? ' (with uncommitted changes)' : '';
  return {
    commit: `${commit}${dirty}`,
    machine: `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    database: embeddedDatabase ? 'embedded PostgreSQL started for the run' : 'the PostgreSQL server of TEST_DATABASE_URL',
  };
}

let embeddedDatabase = false;

/** TEST_DATABASE_URL, or an embedded PostgreSQL for this run. */
export async function benchDatabase(): Promise<() => Promise<void>> {
  if (process.env.TEST_DATABASE_URL) return async () => {};
  embeddedDatabase = true;
  const embedded = await startEmbeddedPostgres(path.resolve('.data', `bench-postgres-${process.pid}`), 'postgres', createLogger('silent'), { persistent: false });
  process.env.TEST_DATABASE_URL = embedded.adminUrl;
  return () => embedded.stop();
}

export const benchApp = () => startTestApp({ LOGIN_LIMIT_PER_IP: '100000/1m' });

export async function listen(app: Express): Promise<{ url: string; close: () => void }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

export const plainApp = () => express();

/** Fails when two ways of reading the same thing do not answer the same JSON. */
export async function assertSameAnswer(a: Scenario, b: Scenario): Promise<void> {
  const read = async (s: Scenario) => (await fetch(s.url, { method: s.method, headers: s.headers, body: s.body })).text();
  const [left, right] = [await read(a), await read(b)];
  if (left !== right) throw new Error(`${a.name} and ${b.name} answer differently:\n${left.slice(0, 400)}\n${right.slice(0, 400)}`);
}

export async function measure(scenarios: Scenario[]): Promise<Record<string, Result>> {
  const results: Record<string, Result> = {};
  for (const scenario of scenarios) {
    await autocannon({ ...scenario, connections: CONNECTIONS, duration: 2 }); // warm-up
    const r = await autocannon({ ...scenario, connections: CONNECTIONS, duration: DURATION });
    results[scenario.name] = { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors };
    process.stdout.write(`${scenario.name.padEnd(8)} ${String(results[scenario.name].rps).padStart(6)} req/s  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  errors ${results[scenario.name].errors}\n`);
  }
  return results;
}

/** Prints the ratios to `plain` and writes bench/results/<name>.json and .md. */
export function report(name: string, scenario: string, results: Record<string, Result>): void {
  const ratios = Object.fromEntries(
    Object.keys(results).filter((k) => k !== 'plain').map((k) => [`${k}/plain`, Math.round((results[k].rps / results.plain.rps) * 100) / 100]),
  );
  process.stdout.write(`ratios ${Object.entries(ratios).map(([k, v]) => `${k} ${v}`).join('  ')}\n`);
  const measuredAt = new Date().toISOString();
  const { commit, machine, database } = runInfo();
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(`bench/results/${name}.json`, `${JSON.stringify({ scenario, measuredAt, commit, machine, database, durationSeconds: DURATION, connections: CONNECTIONS, results, ratios }, null, 2)}\n`);
  writeFileSync(`bench/results/${name}.md`, [
    `# ${scenario} (${measuredAt.slice(0, 10)}, commit ${commit})`,
    '',
    `${machine}; ${database}. ${DURATION} s per path, ${CONNECTIONS} connections.`,
    '',
    '| path | req/s | p50 ms | p99 ms | errors |',
    '|---|---|---|---|---|',
    ...Object.entries(results).map(([k, r]) => `| ${k} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} |`),
    '',
    Object.entries(ratios).map(([k, v]) => `${k} = ${v}`).join(', '),
    '',
  ].join('\n'));
}

export type { TestApp };
