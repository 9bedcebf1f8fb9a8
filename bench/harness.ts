import 'reflect-metadata';
import express, { type Express } from 'express';
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { createLogger } from '../src/observability/logger.js';
import { startTestApp, type TestApp } from '../test/helpers/app.js';
import { load, type Result, type Scenario } from './load.js';

// What every benchmark shares: a seeded app on a fresh database, a plain
// Express + pg baseline, autocannon runs, and the report in bench/results/.

export const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);

export type { Result, Scenario };

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

/** The service as an API process runs in production (jobs run in worker processes), on a fresh database. */
export const benchApp = () => startTestApp({ LOGIN_LIMIT_PER_IP: '100000/1m', PROCESS_ROLE: 'api' });

export async function listen(app: Express): Promise<{ url: string; close: () => void }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** Fails when two ways of reading the same thing do not answer the same bytes (`b` seen through `shape` when given). */
export async function assertSameAnswer(a: Scenario, b: Scenario, shape: (body: string) => string = (body) => body): Promise<void> {
  const read = async (s: Scenario) => (await fetch(s.url, { method: s.method, headers: s.headers, body: s.body })).text();
  const [left, right] = [await read(a), shape(await read(b))];
  if (left !== right) throw new Error(`${a.name} and ${b.name} answer differently:\n${left.slice(0, 400)}\n${right.slice(0, 400)}`);
}

/**
 * Each scenario in turn, under load from a thread of its own. `before`, when
 * given, runs before each path (writes: a VACUUM, so each path finds the table
 * as clean as the first did, not the dead rows of the paths before it).
 */
export async function measure(scenarios: Scenario[], before?: () => Promise<unknown>): Promise<Record<string, Result>> {
  const results: Record<string, Result> = {};
  for (const scenario of scenarios) {
    await before?.();
    const result = (results[scenario.name] = await load(scenario, CONNECTIONS, DURATION));
    process.stdout.write(`${scenario.name.padEnd(8)} ${String(result.rps).padStart(6)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms  errors ${result.errors}\n`);
  }
  return results;
}

/** Ratios of each path to `plain` within each group. */
export function ratiosOf(groups: Record<string, Record<string, Result>>): Record<string, number> {
  const ratios: Record<string, number> = {};
  for (const [group, results] of Object.entries(groups)) {
    if (!results.plain) continue;
    for (const [path, result] of Object.entries(results)) {
      if (path !== 'plain') ratios[`${group} ${path}/plain`] = Math.round((result.rps / results.plain.rps) * 100) / 100;
    }
  }
  return ratios;
}

/** Writes bench/results/<name>.json and .md: the groups, their ratios, and where they were measured. */
export function report(name: string, scenario: string, groups: Record<string, Record<string, Result>>, extra: Record<string, number> = {}): void {
  const ratios = { ...ratiosOf(groups), ...extra };
  process.stdout.write(`ratios ${Object.entries(ratios).map(([k, v]) => `${k} ${v}`).join('  ')}\n`);
  const measuredAt = new Date().toISOString();
  const { commit, machine, database } = runInfo();
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(`bench/results/${name}.json`, `${JSON.stringify({ scenario, measuredAt, commit, machine, database, durationSeconds: DURATION, connections: CONNECTIONS, results: groups, ratios }, null, 2)}\n`);
  writeFileSync(`bench/results/${name}.md`, [
    `# ${scenario} (${measuredAt.slice(0, 10)}, commit ${commit})`,
    '',
    `${machine}; ${database}. ${DURATION} s per path after a 2 s warm-up, ${CONNECTIONS} connections, load generated by a process of its own.`,
    '',
    '| scenario | path | req/s | p50 ms | p99 ms | errors |',
    '|---|---|---|---|---|---|',
    ...Object.entries(groups).flatMap(([group, results]) => Object.entries(results).map(([k, r]) => `| ${group} | ${k} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} |`)),
    '',
    Object.entries(ratios).map(([k, v]) => `${k} = ${v}`).join(', '),
    '',
  ].join('\n'));
}

export type { TestApp };
