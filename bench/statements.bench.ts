import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { kill } from '../test/helpers/worker.js';
import { Receiver, sleep } from '../test/helpers/receiver.js';
import pg from 'pg';
import { encodeTime } from 'ulid';
import { partitionSpanMs } from '../src/webhooks/engine/partitions.js';
import { agentThrough, BEFORE, beforeCheckout, buildDatabase, processOf } from './before-after.bench.js';
import { loginThrough } from '../test/helpers/app.js';
import { benchApp, postgresCpuUs, postmasterOf, runInfo } from './harness.js';
import { closedLoop, openLoop } from './webhooks.bench.js';
import { readSessions, type SessionsReading, sessionsCpuUs } from './postgres-sessions.js';

// `npm run bench -- statements`: what one event costs the database, from the API's write to the settled attempt,
// for this build and for BEFORE (main before the house issue), one after the other on one server, each on a
// database of its own schema: each build's API process and two workers, events caused by GraphQL mutations over HTTP. Two loads: one webhook and writes
// offered at 200/s (the cost of a write and its delivery), and twenty webhooks with writes 10 at a time (the cost
// of a delivery at a fan-out of 20). For each: PostgreSQL's CPU (every process of the server, from the kernel's
// counters) and pg_stat_statements (statements and their execution time), divided by the events or deliveries.
// Needs pg_stat_statements loaded: the bench's embedded PostgreSQL loads it (harness.ts).

const WRITES_PER_SECOND = 200;
const SECONDS = 10;
const FAN_OUT_EVENTS = 300;
const FAN_OUT = 20;
/** Rounds of each build (even: in pairs, the order ABBA repeated). */
const ROUNDS = Number(process.env.BENCH_STATEMENT_ROUNDS ?? 6);
const ORDER = Array.from({ length: ROUNDS / 2 }, () => ['before', 'now', 'now', 'before'] as const).flat();
/** The statements listed per load and build: the costliest, the rest summed. */
const LISTED = 12;
/** The bench's own statements carry this comment and are left out. */
const MINE = '/* bench */';

interface Statement {
  query: string;
  calls: number;
  totalMs: number;
}

interface Load {
  /** What the figures are divided by: the writes (fan-out 1) or the deliveries (fan-out 20). */
  per: 'write and delivery' | 'delivery';
  units: number;
  cpuUs: number;
  /** The server's CPU by whose sessions it served: the API process's, the workers', the rest (postgres-sessions.ts). */
  sessionsUs: Record<string, number>;
  statements: Statement[];
  /** The server's CPU per unit of each round, in the order run. */
  rounds: number[];
}

/** The parts of the server's CPU reported, in order. */
const SESSIONS = ['the API', 'the workers', 'the rest'] as const;

const label = (query: string) => {
  const flat = query.replace(/\s+/g, ' ').trim();
  return (flat.length > 90 ? `${flat.slice(0, 90)}…` : flat).replaceAll('|', '\\|').replaceAll('`', "'");
};
const perUnit = (n: number, units: number) => Math.round((n / units) * 100) / 100;

/** The retention's default, and the partitions it keeps (webhooks/engine/partitions.ts). */
const RETENTION_MS = 30 * 86_400_000;
const LOG_TABLES = [
  { table: 'webhook_deliveries', key: 'msg_', options: '' },
  { table: 'webhook_attempts', key: 'msg_', options: ' WITH (fillfactor = 80)' },
  { table: 'events', key: 'evt_', options: '' },
];

/**
 * The delivery log's partitions behind today that a month of the retention job leaves (empty: their rows are not
 * what is measured, the statements' plans over them are), named and bounded as the job makes them. Returns how many
 * each table has.
 */
async function monthBehind(pool: pg.Pool): Promise<number> {
  const day = 86_400_000;
  const span = partitionSpanMs(RETENTION_MS);
  const today = Math.floor(Date.now() / day) * day;
  let made = 0;
  for (let from = today - span; from + span > today - RETENTION_MS; from -= span, made++)
    for (const { table, key, options } of LOG_TABLES) {
      const name = `${table}_p${new Date(from).toISOString().slice(0, 10).replaceAll('-', '')}`;
      const bound = (ms: number) => `'${key}${encodeTime(ms, 10)}'`;
      await pool.query(
        `${MINE} CREATE TABLE "${name}" PARTITION OF ${table} FOR VALUES FROM (${bound(from)}) TO (${bound(from + span)})${options}`,
      );
    }
  return made;
}

export async function statementsBench(): Promise<void> {
  const app = await benchApp();
  const [{ loaded }] = await app.sql<{ loaded: boolean }>(
    `${MINE} SELECT current_setting('shared_preload_libraries') LIKE '%pg_stat_statements%' AS loaded`,
  );
  if (!loaded) {
    process.stdout.write('statements: pg_stat_statements is not loaded on this server (unset TEST_DATABASE_URL)\n');
    await app.close();
    return;
  }
  const builds = { before: beforeCheckout(), now: process.cwd() } as const;
  // Each build on a database of its own, where nothing else listens (buildDatabase).
  const pools = {
    before: new pg.Pool({ connectionString: await buildDatabase(app, builds.before), max: 2 }),
    now: new pg.Pool({ connectionString: await buildDatabase(app, builds.now), max: 2 }),
  };
  // This build's delivery log as a deployment's is after a month: the partitions the retention keeps behind today.
  const behind = await monthBehind(pools.now);
  type Sql = <T>(text: string, params?: unknown[]) => Promise<T[]>;
  const sqlOf: Record<keyof typeof builds, Sql> = {
    now: async (text, params) => (await pools.now.query(text, params)).rows,
    before: async (text, params) => (await pools.before.query(text, params)).rows,
  };
  const production = { NODE_ENV: 'production', LOG_LEVEL: 'error', SEED_DEMO: 'false' };
  const api = { ...production, PROCESS_ROLE: 'api', API_LIMIT_PER_TOKEN: 'off', API_LIMIT_PER_COMPANY: 'off' };
  const receiver = await new Receiver().start();
  const database = await postmasterOf(app);
  const port = Number(new URL(app.running.databaseUrl).port);
  const results: Record<string, Record<string, Load>> = {};
  try {
    // ROUNDS rounds of each build, in the order ABBA again and again, summed: a slow moment of the machine falls on
    // both, and on a machine whose runs of the same build differ by a tenth, more rounds narrow the spread.
    for (const build of ORDER) {
      const processes: ChildProcess[] = [];
      const sql = sqlOf[build];
      const own = { DATABASE_URL: pools[build].options.connectionString! };
      try {
        await sql(`${MINE} CREATE EXTENSION IF NOT EXISTS pg_stat_statements`);
        const server = await processOf(app, builds[build], { ...api, ...own });
        processes.push(server);
        for (let i = 0; i < 2; i++)
          processes.push(await processOf(app, builds[build], { ...production, PROCESS_ROLE: 'worker', ...own }));
        const token = await loginThrough(server.url);
        const json = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
        const createAgent = (name: string) => agentThrough(server.url, json, name);
        const webhooks = async (count: number) => {
          await sql(`${MINE} UPDATE webhooks SET active = false`);
          for (let i = 0; i < count; i++) {
            const res = await fetch(`${server.url}/api/webhooks`, {
              method: 'POST',
              headers: json,
              body: JSON.stringify({
                title: `S ${build} ${i}`,
                url: `${receiver.url}/${build}/${count}/${i}`,
                events: ['agent.created'],
              }),
            });
            if (res.status !== 201) throw new Error(`webhook: ${res.status} ${await res.text()}`);
          }
        };
        /** Waits for `expected` more receipts and every delivery settled. */
        const settled = async (from: number, expected: number) => {
          await receiver.waitFor(from + expected, 300_000);
          for (let waited = 0; waited < 600; waited++) {
            const [{ n }] = await sql<{ n: number }>(
              `${MINE} SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`,
            );
            if (n === 0) return;
            await sleep(100);
          }
          throw new Error('deliveries still pending after 60 s');
        };
        const names = new Map([
          [server.pid!, 'the API'],
          ...processes.slice(1).map((worker) => [worker.pid!, 'the workers'] as const),
        ]);
        const sessions = async (): Promise<SessionsReading> =>
          readSessions(
            database,
            port,
            await sql<{ pid: number; port: number | null }>(
              `${MINE} SELECT pid, client_port AS port FROM pg_stat_activity`,
            ),
            names,
          );
        const measured = async (per: Load['per'], units: number, run: () => Promise<void>): Promise<Load> => {
          await sql(`${MINE} SELECT pg_stat_statements_reset()`);
          const cpu = postgresCpuUs(database);
          const sessionsBefore = await sessions();
          await run();
          const cpuUs = postgresCpuUs(database) - cpu;
          const sessionsUs = sessionsCpuUs(sessionsBefore, await sessions());
          const statements = (
            await sql<{ query: string; calls: string; total: number }>(
              `${MINE} SELECT query, calls, total_exec_time AS total FROM pg_stat_statements
               WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE $1`,
              [`%${MINE}%`],
            )
          ).map((s) => ({ query: s.query, calls: Number(s.calls), totalMs: s.total }));
          return { per, units, cpuUs, sessionsUs, statements, rounds: [Math.round(cpuUs / units)] };
        };
        results[build] ??= {};
        const add = (load: string, measure: Load) => {
          const had = results[build][load];
          results[build][load] = had ? merged(had, measure) : measure;
        };
        // One webhook, writes at a steady rate: a write and its delivery.
        await webhooks(1);
        let from = receiver.received.length;
        await closedLoop(100, 5, (i) => createAgent(`Warm ${build} ${i}`));
        await settled(from, 100);
        const writes = WRITES_PER_SECOND * SECONDS;
        from = receiver.received.length;
        add(
          'fan-out 1',
          await measured('write and delivery', writes, async () => {
            // A write the API did not answer in time (an overloaded machine) made no delivery: only the others are awaited.
            const load = await openLoop(WRITES_PER_SECOND, SECONDS, (i) => createAgent(`One ${build} ${i}`));
            await settled(from, writes - load.failed);
          }),
        );
        // Twenty webhooks: a delivery at a fan-out of 20.
        await webhooks(FAN_OUT);
        from = receiver.received.length;
        await closedLoop(20, 5, (i) => createAgent(`Warm ${build} ${i}`));
        await settled(from, 20 * FAN_OUT);
        from = receiver.received.length;
        add(
          `fan-out ${FAN_OUT}`,
          await measured('delivery', FAN_OUT_EVENTS * FAN_OUT, async () => {
            await closedLoop(FAN_OUT_EVENTS, 10, (i) => createAgent(`Many ${build} ${i}`));
            await settled(from, FAN_OUT_EVENTS * FAN_OUT);
          }),
        );
      } finally {
        for (const child of processes) await kill(child);
      }
    }
  } finally {
    await receiver.close();
    await Promise.all([pools.before.end(), pools.now.end()]);
    await app.close();
  }
  writeResults(results, behind);
}

/** Two measures of one load summed: its units, its CPU, and each statement's calls and time. */
function merged(a: Load, b: Load): Load {
  const statements = new Map(a.statements.map((s) => [s.query, { ...s }]));
  for (const s of b.statements) {
    const had = statements.get(s.query);
    if (had) (had.calls += s.calls), (had.totalMs += s.totalMs);
    else statements.set(s.query, { ...s });
  }
  const sessionsUs = Object.fromEntries(SESSIONS.map((s) => [s, (a.sessionsUs[s] ?? 0) + (b.sessionsUs[s] ?? 0)]));
  return {
    per: a.per,
    units: a.units + b.units,
    cpuUs: a.cpuUs + b.cpuUs,
    sessionsUs,
    statements: [...statements.values()],
    rounds: [...a.rounds, ...b.rounds],
  };
}

function writeResults(results: Record<string, Record<string, Load>>, behind: number): void {
  const info = runInfo();
  const summary = [
    `| load | build | PostgreSQL CPU µs | of it, sessions of: ${SESSIONS.join(' / ')} | statements | statement time µs | per | ` +
      'each round, µs |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const spreads: string[] = [];
  const lists: string[] = [];
  const json: Record<string, unknown> = { ...info, before: BEFORE, loads: {} };
  for (const load of Object.keys(results.now)) {
    for (const build of ['before', 'now'] as const) {
      const { per, units, cpuUs, sessionsUs, statements, rounds } = results[build][load];
      const split = SESSIONS.map((s) => Math.round((sessionsUs[s] ?? 0) / units));
      const calls = statements.reduce((sum, s) => sum + s.calls, 0);
      const totalMs = statements.reduce((sum, s) => sum + s.totalMs, 0);
      summary.push(
        `| ${load} | ${build === 'now' ? 'this build' : BEFORE} | ${Math.round(cpuUs / units)} | ${split.join(' / ')} | ` +
          `${perUnit(calls, units)} | ` +
          `${Math.round((totalMs * 1000) / units)} | ${per} | ${rounds.join(', ')} |`,
      );
      (json.loads as Record<string, unknown>)[`${load}, ${build}`] = {
        per,
        units,
        postgresCpuUsPer: Math.round(cpuUs / units),
        sessionsCpuUsPer: Object.fromEntries(SESSIONS.map((s, i) => [s, split[i]])),
        statementsPer: perUnit(calls, units),
        statementTimeUsPer: Math.round((totalMs * 1000) / units),
        roundsCpuUsPer: rounds,
      };
      const sorted = [...statements].sort((a, b) => b.totalMs - a.totalMs);
      const rest = sorted.slice(LISTED);
      lists.push(
        `#### ${load}, ${build === 'now' ? 'this build' : BEFORE}: per ${per}`,
        '',
        '| statement | calls | time µs |',
        '|---|---|---|',
        ...sorted
          .slice(0, LISTED)
          .map(
            (s) => `| \`${label(s.query)}\` | ${perUnit(s.calls, units)} | ${Math.round((s.totalMs * 1000) / units)} |`,
          ),
        `| ${rest.length} others | ${perUnit(
          rest.reduce((sum, s) => sum + s.calls, 0),
          units,
        )} | ${Math.round((rest.reduce((sum, s) => sum + s.totalMs, 0) * 1000) / units)} |`,
        '',
      );
    }
  }
  for (const load of Object.keys(results.now)) {
    const now = results.now[load];
    const before = results.before[load];
    // The rounds ran in pairs (ABBA): each pair's ratio shows how far one pair alone could be from the sums'.
    const pairs = now.rounds.map((n, i) => n / before.rounds[i]);
    const sorted = [...pairs].sort((a, b) => a - b);
    const median = (sorted[(sorted.length - 1) >> 1] + sorted[sorted.length >> 1]) / 2;
    const sums = (now.cpuUs / now.units / (before.cpuUs / before.units)).toFixed(2);
    spreads.push(
      `${load}: this build / ${BEFORE}, ${sums} over the sums; ${pairs.map((r) => r.toFixed(2)).join(', ')} by pair ` +
        `of rounds, median ${median.toFixed(2)}; ${pairs.filter((r) => r <= 0.5).length} of ${pairs.length} pairs at ` +
        'half or under.',
    );
  }
  const md = [
    `# What one event costs PostgreSQL, this build against ${BEFORE} (${info.commit})`,
    '',
    `${info.machine}; ${info.database}, with pg_stat_statements. Each build's API process and two workers (production ` +
      'mode) on one server, each on a database of its own schema where no other session listens, ' +
      `${ROUNDS} rounds of each in the order ABBA ${ROUNDS / 2} times, summed; ` +
      `events caused by GraphQL mutations over HTTP. Fan-out 1: one ` +
      `webhook, ${WRITES_PER_SECOND} writes/s offered for ${SECONDS} s, figures per write and its delivery. Fan-out ` +
      `${FAN_OUT}: ${FAN_OUT} webhooks, ${FAN_OUT_EVENTS} writes 10 at a time, figures per delivery. PostgreSQL CPU: every ` +
      'process of the server (kernel counters) from the first write to the last settled attempt; statements and their ' +
      "execution time from pg_stat_statements over the same span (the bench's own left out). Of it: the CPU of the " +
      "backends serving the API process's connections, the workers' connections, and the rest (background processes, " +
      "autovacuum, sessions that ended during the run). This build's delivery log is partitioned as after a month " +
      `under the default retention: ${behind} partitions behind today's, besides those its workers make ahead.`,
    '',
    ...summary,
    '',
    ...spreads,
    '',
    ...lists,
  ].join('\n');
  writeFileSync('bench/results/statements.md', md);
  writeFileSync('bench/results/statements.json', `${JSON.stringify(json, null, 2)}\n`);
  process.stdout.write(`${summary.join('\n')}\n${spreads.join('\n')}\n`);
}
