import 'reflect-metadata';
import { type Express } from 'express';
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { createLogger } from '../src/observability/logger.js';
import { startTestApp, type TestApp } from '../test/helpers/app.js';
import { readdirSync, readFileSync } from 'node:fs';
import { load, machineBusyTicks, type Scenario, type Window } from './load.js';

export { machineBusyTicks };

// What every benchmark shares: a seeded app on a fresh database, a plain
// Express + pg baseline, autocannon runs, and the report in bench/results/.

export const DURATION = Number(process.env.BENCH_SECONDS ?? 15);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
/** Unmeasured seconds at the start of each window. */
const LEAD_IN = 1;

/** One path's figures over all its rounds. */
export interface Result {
  rps: number;
  /** Over every response of every round, in ms. */
  p50: number;
  p99: number;
  errors: number;
  /** Each round's rate, in the order the rounds ran: the spread within the run. */
  roundsRps: number[];
  /** Share of the machine's CPU time the hypervisor gave to other guests while this path ran, in percent. */
  stealPercent: number | null;
  /** The machine's busy CPU (clock ticks, every process) per 1,000 answers, over all rounds: what one answer costs, whatever the host's speed. */
  busyTicksPer1000: number | null;
  /** CPU time of the process serving the path (this one, or the path's own; not PostgreSQL, not the load generator) per answer, in µs. */
  processCpuUs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * How path `a` compares with path `b` measured side by side: the rate over
 * all rounds, the median of each round's rate against the round of `b` next
 * to it (a drift of the host falls on both of a pair alike), and the
 * machine's CPU per answer (b's over a's: below 1 when `a` costs more).
 */
export function compare(
  a: Result,
  b: Result,
): { mean: number; paired: number; cpu: number | null; processCpu: number } {
  const two = (x: number) => Math.round(x * 100) / 100;
  return {
    mean: two(a.rps / b.rps),
    paired: two(median(a.roundsRps.map((rate, i) => rate / b.roundsRps[i]))),
    cpu: a.busyTicksPer1000 && b.busyTicksPer1000 ? two(b.busyTicksPer1000 / a.busyTicksPer1000) : null,
    processCpu: two(b.processCpuUs / a.processCpuUs),
  };
}

export type { Scenario };

/** Where a result comes from: the commit, the machine and the database it ran on. */
export function runInfo(): { commit: string; machine: string; database: string } {
  const commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  const dirty = execSync('git status --porcelain -- src bench test web :!bench/results', { encoding: 'utf8' }).trim()
    ? ' (with uncommitted changes)'
    : '';
  return {
    commit: `${commit}${dirty}`,
    machine: `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    database: embeddedDatabase
      ? 'embedded PostgreSQL started for the run'
      : 'the PostgreSQL server of TEST_DATABASE_URL',
  };
}

let embeddedDatabase = false;

/** TEST_DATABASE_URL, or an embedded PostgreSQL for this run. */
export async function benchDatabase(): Promise<() => Promise<void>> {
  if (process.env.TEST_DATABASE_URL) return async () => {};
  embeddedDatabase = true;
  const embedded = await startEmbeddedPostgres(
    path.resolve('.data', `bench-postgres-${process.pid}`),
    'postgres',
    createLogger('silent'),
    // pg_stat_statements for the statements part (statements.bench.ts). Room for the peer part's three systems, each
    // of which an operator would run on a server of its own (real-peer.bench.ts): sampled each second, they held up
    // to 99 connections together, at PostgreSQL's default limit of 100, and whichever asked for the next one failed.
    { persistent: false, settings: { shared_preload_libraries: 'pg_stat_statements', max_connections: '300' } },
  );
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
export async function assertSameAnswer(
  a: Scenario,
  b: Scenario,
  shape: (body: string) => string = (body) => body,
): Promise<void> {
  const read = async (s: Scenario) =>
    (await fetch(s.url, { method: s.method, headers: s.headers, body: s.body })).text();
  const [left, right] = [await read(a), shape(await read(b))];
  if (left !== right)
    throw new Error(`${a.name} and ${b.name} answer differently:\n${left.slice(0, 400)}\n${right.slice(0, 400)}`);
}

/** CPU time counters of the whole machine (Linux /proc/stat): steal and the total; null elsewhere. */
function cpuTimes(): { steal: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { steal: fields[7] ?? 0, total: fields.reduce((sum, n) => sum + n, 0) };
  } catch {
    return null;
  }
}

/** CPU time (user and system, µs) of the process serving a path: this one, or the scenario's `pid` (Linux /proc, in hundredths of a second). */
function serviceCpuUs(scenario: Scenario): number {
  if (scenario.pid === undefined) {
    const used = process.cpuUsage();
    return used.user + used.system;
  }
  // /proc/<pid>/stat: the fields after the command's closing parenthesis; utime and stime are the 12th and 13th of them.
  const stat = readFileSync(`/proc/${scenario.pid}/stat`, 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return (fields[11] + fields[12]) * 10_000;
}

/** CPU time (user and system, µs) of processes by pid, from /proc (Linux; a process gone counts 0). */
export function processCpuUs(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += serviceCpuUs({ name: '', url: '', pid });
    } catch {
      // gone
    }
  }
  return total;
}

/** /proc/<pid>/stat's fields after the command: utime, stime, cutime, cstime are the 12th to 15th (clock ticks). */
export function statFields(pid: number): number[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
}

/**
 * The CPU (µs) a PostgreSQL server has used so far: its postmaster's own and
 * that of the backends it has reaped (cutime, cstime), and that of its live
 * processes. Backends that come and go between two readings are counted.
 */
export function postgresCpuUs(postmaster: number): number {
  const [utime, stime, cutime, cstime] = statFields(postmaster).slice(11, 15);
  let ticks = utime + stime + cutime + cstime;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(Number(entry));
      if (fields[1] === postmaster) ticks += fields[11] + fields[12]; // the parent's pid is the 2nd field after the command
    } catch {
      // gone
    }
  }
  return ticks * 10_000;
}

/** The postmaster of the database `app` runs on: the parent of one of its backends. */
export async function postmasterOf(app: TestApp): Promise<number> {
  const [{ pid }] = await app.sql<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return statFields(pid)[1];
}

/** The value at a percentile of sorted values (nearest rank), to 0.1 ms. */
const percentile = (sorted: number[], p: number) =>
  Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] * 10) / 10;

/**
 * The paths side by side under load from a process of their own: each warmed
 * up, then ROUNDS rounds in which every path runs DURATION / ROUNDS seconds
 * (after an unmeasured second), each round in a rotated order. A drift of the machine (another guest on
 * the host, a checkpoint, a table growing) then falls on every path alike
 * instead of on whichever ran at that moment. Rates are over all rounds,
 * p50 and p99 over every response of every round. `before`, when given,
 * runs before each window (writes: a VACUUM, so each path finds the table as
 * clean as the others did, not the dead rows of the windows before it).
 */
export async function measure(
  scenarios: Scenario[],
  before?: () => Promise<unknown>,
  rounds = ROUNDS,
): Promise<Record<string, Result>> {
  const windows = new Map<string, Array<Window & { steal: number; total: number; processUs: number }>>(
    scenarios.map((s) => [s.name, []]),
  );
  for (const scenario of scenarios) {
    await before?.();
    await load(scenario, CONNECTIONS, 2); // warm-up: JIT, caches, connections
  }
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < scenarios.length; i++) {
      const scenario = scenarios[(i + round) % scenarios.length];
      await before?.();
      const cpuBefore = cpuTimes();
      const processBefore = serviceCpuUs(scenario);
      const window = await load(scenario, CONNECTIONS, DURATION / ROUNDS, LEAD_IN);
      const processUsed = serviceCpuUs(scenario) - processBefore;
      const cpuAfter = cpuTimes();
      windows.get(scenario.name)!.push({
        ...window,
        steal: (cpuAfter?.steal ?? 0) - (cpuBefore?.steal ?? 0),
        total: (cpuAfter?.total ?? 0) - (cpuBefore?.total ?? 0),
        processUs: processUsed / Math.max(1, window.latencies.length + window.leadInAnswers),
      });
    }
  }
  const results: Record<string, Result> = {};
  for (const [name, runs] of windows) {
    const latencies = runs.flatMap((w) => w.latencies).sort((a, b) => a - b);
    const seconds = runs.reduce((sum, w) => sum + w.seconds, 0);
    const total = runs.reduce((sum, w) => sum + w.total, 0);
    const result = (results[name] = {
      rps: Math.round(latencies.length / seconds),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      errors: runs.reduce((sum, w) => sum + w.errors, 0),
      roundsRps: runs.map((w) => Math.round(w.latencies.length / w.seconds)),
      stealPercent: total > 0 ? Math.round((runs.reduce((sum, w) => sum + w.steal, 0) / total) * 1000) / 10 : null,
      busyTicksPer1000: runs.every((w) => w.busy !== null)
        ? Math.round((runs.reduce((sum, w) => sum + w.busy!, 0) / latencies.length) * 1000 * 100) / 100
        : null,
      processCpuUs: Math.round(runs.reduce((sum, w) => sum + w.processUs, 0) / runs.length),
    });
    process.stdout.write(
      `${name.padEnd(8)} ${String(result.rps).padStart(6)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ` +
        `ms  errors ${result.errors}  rounds ${result.roundsRps.join(' ')}  steal ` +
        `${result.stealPercent ?? '?'} %  cpu ${result.busyTicksPer1000 ?? '?'}/1000, here ` +
        `${result.processCpuUs} µs\n`,
    );
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
export function report(
  name: string,
  scenario: string,
  groups: Record<string, Record<string, Result>>,
  extra: Record<string, number> = {},
): void {
  const ratios = { ...ratiosOf(groups), ...extra };
  process.stdout.write(
    `ratios ${Object.entries(ratios)
      .map(([k, v]) => `${k} ${v}`)
      .join('  ')}\n`,
  );
  const measuredAt = new Date().toISOString();
  const { commit, machine, database } = runInfo();
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    `bench/results/${name}.json`,
    `${JSON.stringify(
      {
        scenario,
        measuredAt,
        commit,
        machine,
        database,
        durationSeconds: DURATION,
        rounds: ROUNDS,
        connections: CONNECTIONS,
        results: groups,
        ratios,
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(
    `bench/results/${name}.md`,
    [
      `# ${scenario} (${measuredAt.slice(0, 10)}, commit ${commit})`,
      '',
      `${machine}; ${database}. ${CONNECTIONS} connections, load generated by a process of its own. Each ` +
        `path warmed up for 2 s, then ${ROUNDS} rounds of ${DURATION / ROUNDS} s (the rate limits' A/B more: ` +
        `see its rounds) (each after ${LEAD_IN} s unmeasured), the paths of a scenario ` +
        'alternating (each round in a rotated order); req/s over all rounds, p50 and p99 over every response of every round. ' +
        `Steal: the share of the machine's CPU time the hypervisor gave to other guests while the path ran. ` +
        `CPU: the machine's busy clock ticks (every process) per 1,000 answers; here: CPU of the process the ` +
        `service under test runs in (the bench's, or the service's own process where it has one), per answer.`,
      '',
      '| scenario | path | req/s | p50 ms | p99 ms | errors | req/s per round | steal | CPU | here µs |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...Object.entries(groups).flatMap(([group, results]) =>
        Object.entries(results).map(
          ([k, r]) =>
            `| ${group} | ${k} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.roundsRps.join(', ')} | ` +
            `${r.stealPercent ?? 'n/a'} % | ${r.busyTicksPer1000 ?? 'n/a'} | ${r.processCpuUs} |`,
        ),
      ),
      '',
      Object.entries(ratios)
        .map(([k, v]) => `${k} = ${v}`)
        .join(', '),
      '',
    ].join('\n'),
  );
}

export type { TestApp };
