import { fork } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { getPriority, setPriority } from 'node:os';
import pg from 'pg';
import { Receiver, sleep } from '../test/helpers/receiver.js';
import { postgresCpuUs, postmasterOf, runInfo } from './harness.js';
import { CREATE_AGENT, cluster, percentile, stop } from './webhooks.bench.js';
import { mutationLoad } from './mutation-load.js';
import { machineTicks } from './load.js';

// `npm run bench -- tail`: where the API's tail comes from at 200 writes a second with a webhook. An API process and
// two workers (production mode), one webhook to a receiver on loopback, GraphQL createAgent offered at RATE a second
// for SECONDS, in rounds that alternate how the workers run: as deployed (at WORKER_NICE, 10: they yield the CPU to
// the API); at full priority (nice 0, as before WORKER_NICE); paused (SIGSTOP, their backlog delivered after the
// round); none (both stopped for the round and two new ones started after it: a paused worker still holds its
// sessions and its listener's place in the notification queue); and, as deployed but with PostgreSQL's commits not
// waiting for their WAL to reach the disk (synchronous_commit off for the round, by ALTER SYSTEM and a reload: a
// diagnosis, never a setting of the product), to show how much of the tail is the disk's flushes; and, the workers as
// deployed, the load offered to a second API process that collects garbage with V8's helper threads (GC_THREADS=
// parallel), beside the product's collector on the event loop's thread (ADR 0108); and, the workers as deployed, the
// load offered to a third API process whose pools close a connection idle for 10 s (DATABASE_IDLE_TIMEOUT=10s,
// pg-pool's own default, beside the product's 10 minutes: ADR 0115). Each round
// measures, beside the API's answer, each suspect with its own instrument: the API's event-loop delay (its /metrics,
// whose window each scrape restarts), its garbage collection (time per second), its units of work's waits for a
// connection (db_pool_wait_seconds), lock waits and WAL flush waits (PostgreSQL's sessions sampled every
// LOCK_SAMPLE_MS), the answers over 50 ms as the load saw them and as the API timed them (its
// http_request_duration_seconds: the difference is time outside the API's handling), and the CPU of each process over
// the round (the API, the workers, PostgreSQL, the load, and this process: the receiver), against the machine's
// cores. And the floor (bare-writer.ts): the same load offered to the least a Node.js process can do in the API's
// place (one prepared INSERT a write, its commit flushed), while the API is idle and the workers have nothing to
// deliver: the tail this machine gives any writer, beside the API's. The load runs in a process of its own
// (load-process.ts), so that the receiver's work on this event loop is not counted in the answers' times.

const RATE = 200;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const FLOOR = 'the floor: a bare writer';
/** The workers as deployed, the load offered to a second API process whose collector shares its work with V8's helper threads. */
const HELPERS = 'as deployed, the API collecting with helper threads';
/** The workers as deployed, the load offered to an API process whose pools close a connection idle for 10 s. */
const COLD_POOLS = 'as deployed, the API closing idle connections after 10 s';
/** Every condition, by the key that BENCH_TAIL_ONLY names it with. */
const CONDITIONS = {
  deployed: 'as deployed',
  helpers: HELPERS,
  'cold-pools': COLD_POOLS,
  'full-priority': 'workers at full priority',
  paused: 'workers paused',
  none: 'no workers',
  unflushed: 'commits not flushed',
  floor: FLOOR,
} as const;
type Condition = (typeof CONDITIONS)[keyof typeof CONDITIONS];
/** The conditions a run takes in turns: every one, or those BENCH_TAIL_ONLY names (`deployed,full-priority`). */
const CHOSEN: Condition[] = (process.env.BENCH_TAIL_ONLY ?? Object.keys(CONDITIONS).join(',')).split(',').map((key) => {
  const condition = CONDITIONS[key.trim() as keyof typeof CONDITIONS];
  if (!condition) throw new Error(`BENCH_TAIL_ONLY: "${key}" is not one of ${Object.keys(CONDITIONS).join(', ')}`);
  return condition;
});
/** The results' name: `tail`, which performance.md shows, for every condition; `tail-<keys>` for those chosen. */
const RESULTS = process.env.BENCH_TAIL_ONLY ? `tail-${process.env.BENCH_TAIL_ONLY.replaceAll(',', '+')}` : 'tail';
/** Rounds of each condition (BENCH_ROUNDS; 3 unless set). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Linux's clock tick (USER_HZ), in which /proc counts CPU time. */
const TICK_MS = 10;
/**
 * How often the sessions waiting for a lock are counted: each sample is a query of pg_stat_activity, whose cost
 * falls on the database the round measures (sampled every 10 ms, the sampler took a tenth of a core of it); the
 * waits are estimated as samples times the interval.
 */
const LOCK_SAMPLE_MS = 100;

interface Round {
  condition: Condition;
  /** Every answer's time as the load timed it. For the floor, the API's own measures are NaN (it was idle). */
  answersMs: number[];
  answerP50Ms: number;
  answerP99Ms: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  gcMsPerSecond: number;
  /** The API's garbage collections that took over 10 ms (prom-client's histogram, every kind). */
  gcOver10Ms: number;
  /** Milliseconds a second the main thread (the event loop) was ready to run and waited for a CPU: the API's, the load's. */
  runQueueWaitMsPerSecond: { api: number; load: number };
  poolWaitsOver5Ms: number;
  poolWaitP99Ms: number;
  lockWaitMs: number;
  flushWaitMs: number;
  slowAnswers: { load: number; api: number };
  cpuCores: { api: number; workers: number; postgres: number; load: number; receiver: number };
  /**
   * The machine's CPU over the round: milliseconds a second the hypervisor took (steal), the most it took in one of
   * the sampler's intervals (about LOCK_SAMPLE_MS), and the cores every other process kept busy (the idle APIs, the
   * machine's own services).
   */
  machine: { stolenMsPerSecond: number; stolenMostMs: number; otherCores: number };
  /** PostgreSQL's checkpoints that ended in the round, and the time their files' fsyncs took (checkpoints, below). */
  checkpoints: { ended: number; syncMs: number };
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const round2 = (n: number) => Math.round(n * 100) / 100;

/** A metric's value (summed over its label sets) in Prometheus's text format. */
function metric(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.split(' ').at(-1));
  return sum;
}

/** The writer pool's wait histogram: its buckets' counts by upper bound. */
function poolBuckets(text: string): Map<number, number> {
  const buckets = new Map<number, number>();
  for (const line of text.split('\n')) {
    const match = /^db_pool_wait_seconds_bucket\{le="([^"]+)",pool="writer"\} (\d+)/.exec(line);
    if (match) buckets.set(match[1] === '+Inf' ? Infinity : Number(match[1]), Number(match[2]));
  }
  return buckets;
}

/** Garbage collections over 10 ms so far, of every kind (nodejs_gc_duration_seconds). */
function gcOver10Ms(text: string): number {
  let over = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('nodejs_gc_duration_seconds_bucket{')) continue;
    const count = Number(line.split(' ').at(-1));
    if (line.includes('le="+Inf"')) over += count;
    else if (line.includes('le="0.01"')) over -= count;
  }
  return over;
}

/** The API's answers to POST /graphql over 50 ms, by its own clock (http_request_duration_seconds). */
function answersOver50Ms(text: string): number {
  let all = 0;
  let under = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('http_request_duration_seconds_bucket{') || !line.includes('method="POST"')) continue;
    if (!line.includes('route="/graphql"')) continue;
    const count = Number(line.split(' ').at(-1));
    if (line.includes('le="+Inf"')) all += count;
    else if (line.includes('le="0.05"')) under += count;
  }
  return all - under;
}

/** Each round's sample of the database's sessions: those waiting for a lock, and for the WAL's write or flush. */
const WAITS = `SELECT count(*) FILTER (WHERE wait_event_type = 'Lock')::int AS locks,
  count(*) FILTER (WHERE wait_event IN ('WalSync', 'WalWrite', 'WALWrite'))::int AS flushes
  FROM pg_stat_activity WHERE datname = current_database()`;

/** The smallest bucket bound under which 99 % of the round's waits fell. */
function bucketP99(before: Map<number, number>, after: Map<number, number>): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const total = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  for (const bound of bounds)
    if ((after.get(bound) ?? 0) - (before.get(bound) ?? 0) >= 0.99 * total) return bound * 1000;
  return Infinity;
}

const cpuTicks = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
};

/** Each condition's answers over all its rounds: their p50 and p99, and for the workers as deployed, the goal's verdict. */
function pooled(rounds: Round[]): { lines: string[]; byCondition: Record<string, { p50: number; p99: number }> } {
  const byCondition: Record<string, { p50: number; p99: number }> = {};
  const lines = [...new Set(rounds.map((r) => r.condition))].map((condition) => {
    const answers = rounds.filter((r) => r.condition === condition).flatMap((r) => r.answersMs);
    const p50 = round1(percentile(answers, 50));
    const p99 = round1(percentile(answers, 99));
    byCondition[condition] = { p50, p99 };
    const met = p99 <= 5 * p50 && p99 < 50 ? 'met' : '**not met**';
    const goal = condition === 'as deployed' ? met : condition === FLOOR ? `the floor: ${met}` : '';
    return `| ${condition} | ${answers.length} | ${p50} | ${p99} | ${round1(p99 / p50)} | ${goal} |`;
  });
  return { lines, byCondition };
}

/** The rounds summed by condition: how long the API's event loop waited for a CPU, and where the slow answers were. */
function waitsByCondition(rounds: Round[]): string {
  const conditions = [...new Set(rounds.map((r) => r.condition))].filter((condition) => condition !== FLOOR);
  const mean = (values: number[]) => Math.round(values.reduce((a, b) => a + b, 0) / values.length);
  const waits = conditions.map((condition) => {
    const of = rounds.filter((r) => r.condition === condition);
    return `${condition}, ${mean(of.map((r) => r.runQueueWaitMsPerSecond.api))} ms a second`;
  });
  const apiRounds = rounds.filter((r) => r.condition !== FLOOR);
  const load = apiRounds.reduce((sum, r) => sum + r.slowAnswers.load, 0);
  const api = apiRounds.reduce((sum, r) => sum + r.slowAnswers.api, 0);
  return (
    `Over the rounds of each condition, the API's event loop was ready to run and waited for a CPU: ${waits.join('; ')}. ` +
    `Of the ${load} answers the load timed over 50 ms, the API's own handling took over 50 ms in ${api}: the rest of ` +
    'their time was spent before the API could run them or after, not in its work.'
  );
}

/**
 * The checkpoints PostgreSQL has ended since it started, and the time their fsyncs took, in ms: pg_stat_checkpointer
 * from PostgreSQL 17 on (the embedded server is 18), pg_stat_bgwriter before.
 */
async function checkpoints(admin: pg.Client): Promise<{ ended: number; syncMs: number }> {
  const { rows } = await admin.query(
    Number((await admin.query('SHOW server_version_num')).rows[0].server_version_num) >= 170000
      ? 'SELECT (num_timed + num_requested)::int AS ended, sync_time::float8 AS "syncMs" FROM pg_stat_checkpointer'
      : 'SELECT (checkpoints_timed + checkpoints_req)::int AS ended, checkpoint_sync_time::float8 AS "syncMs" ' +
          'FROM pg_stat_bgwriter',
  );
  return rows[0];
}

/** Nanoseconds a process's main thread (the event loop) has waited for a CPU while ready to run (schedstat). */
const runQueueWaitNs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]);

export async function tailBench(): Promise<void> {
  const c = await cluster();
  const receiver = await new Receiver().start();
  const admin = new pg.Client({ connectionString: c.app.running.databaseUrl });
  await admin.connect();
  const postmaster = await postmasterOf(c.app);
  // Beside the API as deployed (GC_THREADS=main, ADR 0108), one collecting with V8's helper threads, idle but in its round.
  const helpers = await c.newApi({ GC_THREADS: 'parallel' });
  // And one whose pools close their idle connections after 10 s (DATABASE_IDLE_TIMEOUT), idle too but in its round.
  const coldPools = await c.newApi({ DATABASE_IDLE_TIMEOUT: '10s' });
  const rounds: Round[] = [];
  const loader = await mutationLoad();
  const company = (await c.app.providerAccount()).companyId;
  const floor = fork(path.resolve('dist/bench/bare-writer.js'), [c.app.running.databaseUrl, String(company)]);
  const floorUrl = `http://127.0.0.1:${await new Promise((resolve) => floor.once('message', resolve))}/graphql`;
  /** createAgent offered at RATE for `seconds` by the load's process, each named after `tag` (to `url`: the API's). */
  const offered = (tag: string, seconds: number, url = `${c.api.url}/graphql`) =>
    loader.offer({ url, token: c.owner, query: CREATE_AGENT, tag, rate: RATE, seconds });
  try {
    await c.hook(c.owner, 'Tail', `${receiver.url}/tail`);
    // Warm: statements prepared, pools filled, the workers' pumps awake.
    await offered('warm', 2);
    await offered('warm helpers', 2, `${helpers.url}/graphql`);
    await offered('warm cold pools', 2, `${coldPools.url}/graphql`);
    await offered('warm floor', 2, floorUrl);
    const order = Array.from({ length: ROUNDS }, (_, r) => (r % 2 ? [...CHOSEN].reverse() : CHOSEN)).flat();
    for (const condition of order) {
      // No workers: both stopped (their attempts in flight finished) for the round, and two new ones after it.
      if (condition === 'no workers') await Promise.all(c.workers.map((w) => stop(w)));
      const workers = condition === 'no workers' ? [] : c.workers.map((w) => w.pid!);
      // The process answering the load: the API, or for the floor the bare writer.
      const api = condition === HELPERS ? helpers : condition === COLD_POOLS ? coldPools : c.api;
      const answering = condition === FLOOR ? floor.pid! : api.pid!;
      const scrape = async () => (await fetch(`${api.url}/metrics`)).text();
      const deployed = workers.map((pid) => getPriority(pid));
      if (condition === 'workers at full priority') for (const pid of workers) setPriority(pid, 0);
      if (condition === 'workers paused') for (const pid of workers) process.kill(pid, 'SIGSTOP');
      if (condition === 'commits not flushed') await synchronousCommit(admin, 'off');
      const before = await scrape();
      const waitedNs = { api: runQueueWaitNs(answering), load: runQueueWaitNs(loader.pid) };
      const ticks = {
        api: cpuTicks(answering),
        workers: workers.reduce((sum, pid) => sum + cpuTicks(pid), 0),
        postgres: postgresCpuUs(postmaster),
        load: cpuTicks(loader.pid),
        receiver: cpuTicks(process.pid),
      };
      const checkpointsBefore = await checkpoints(admin);
      const machineBefore = machineTicks();
      let lockSamples = 0;
      let flushSamples = 0;
      let stolenMostMs = 0;
      let sampling = true;
      const sampler = (async () => {
        let last = machineBefore;
        while (sampling) {
          const { rows } = await admin.query(WAITS);
          lockSamples += rows[0].locks;
          flushSamples += rows[0].flushes;
          const now = machineTicks();
          if (now && last) stolenMostMs = Math.max(stolenMostMs, (now.stolen - last.stolen) * TICK_MS);
          last = now;
          await sleep(LOCK_SAMPLE_MS);
        }
      })();
      const started = performance.now();
      const tag = `tail ${rounds.length}`;
      const answered = await offered(tag, SECONDS, condition === FLOOR ? floorUrl : `${api.url}/graphql`);
      const elapsed = (performance.now() - started) / 1000;
      sampling = false;
      await sampler;
      const after = await scrape();
      const cpu = {
        api: (cpuTicks(answering) - ticks.api) / 100 / elapsed,
        workers: (workers.reduce((sum, pid) => sum + cpuTicks(pid), 0) - ticks.workers) / 100 / elapsed,
        postgres: (postgresCpuUs(postmaster) - ticks.postgres) / 1e6 / elapsed,
        load: (cpuTicks(loader.pid) - ticks.load) / 100 / elapsed,
        receiver: (cpuTicks(process.pid) - ticks.receiver) / 100 / elapsed,
      };
      const machineAfter = machineTicks();
      const checkpointsAfter = await checkpoints(admin);
      const ours = cpu.api + cpu.workers + cpu.postgres + cpu.load + cpu.receiver;
      const machine =
        machineBefore && machineAfter
          ? {
              stolenMsPerSecond: round1(((machineAfter.stolen - machineBefore.stolen) * TICK_MS) / elapsed),
              stolenMostMs,
              otherCores: round2(Math.max(0, (machineAfter.busy - machineBefore.busy) / 100 / elapsed - ours)),
            }
          : { stolenMsPerSecond: Number.NaN, stolenMostMs: Number.NaN, otherCores: Number.NaN };
      if (condition === 'workers paused') for (const pid of workers) process.kill(pid, 'SIGCONT');
      if (condition === 'commits not flushed') await synchronousCommit(admin, 'on');
      if (condition === 'workers at full priority')
        for (const [i, pid] of workers.entries()) setPriority(pid, deployed[i]);
      if (condition === 'no workers')
        c.workers.splice(0, c.workers.length, ...(await Promise.all(c.workers.map(() => c.newWorker()))));
      // Every write of the round delivered before the next (the floor's make no deliveries).
      if (condition !== FLOOR) await receiver.waitFor(RATE * SECONDS, 120_000, (r) => r.body.includes(`"${tag} `));
      const waitsBefore = poolBuckets(before);
      const waitsAfter = poolBuckets(after);
      const over = (m: Map<number, number>) => (m.get(Infinity) ?? 0) - (m.get(0.005) ?? 0);
      if (answered.failed > 0) throw new Error(`${condition}: ${answered.failed} writes failed: ${answered.failures}`);
      /** A measure of the API's own (its metrics): not the floor's. */
      const own = (value: number) => (condition === FLOOR ? Number.NaN : value);
      rounds.push({
        condition,
        answersMs: answered.answersMs,
        answerP50Ms: answered.answerP50Ms,
        answerP99Ms: answered.answerP99Ms,
        loopDelayP99Ms: own(round1(metric(after, 'nodejs_eventloop_lag_p99_seconds') * 1000)),
        loopDelayMaxMs: own(round1(metric(after, 'nodejs_eventloop_lag_max_seconds') * 1000)),
        gcMsPerSecond: own(
          round1(
            ((metric(after, 'nodejs_gc_duration_seconds_sum') - metric(before, 'nodejs_gc_duration_seconds_sum')) *
              1000) /
              elapsed,
          ),
        ),
        gcOver10Ms: own(gcOver10Ms(after) - gcOver10Ms(before)),
        runQueueWaitMsPerSecond: {
          api: round1((runQueueWaitNs(answering) - waitedNs.api) / 1e6 / elapsed),
          load: round1((runQueueWaitNs(loader.pid) - waitedNs.load) / 1e6 / elapsed),
        },
        poolWaitsOver5Ms: own(over(waitsAfter) - over(waitsBefore)),
        poolWaitP99Ms: own(bucketP99(waitsBefore, waitsAfter)),
        lockWaitMs: lockSamples * LOCK_SAMPLE_MS,
        flushWaitMs: flushSamples * LOCK_SAMPLE_MS,
        slowAnswers: { load: answered.over50Ms, api: own(answersOver50Ms(after) - answersOver50Ms(before)) },
        cpuCores: {
          api: round2(cpu.api),
          workers: round2(cpu.workers),
          postgres: round2(cpu.postgres),
          load: round2(cpu.load),
          receiver: round2(cpu.receiver),
        },
        machine,
        checkpoints: {
          ended: checkpointsAfter.ended - checkpointsBefore.ended,
          syncMs: Math.round(checkpointsAfter.syncMs - checkpointsBefore.syncMs),
        },
      });
      process.stdout.write(`tail: ${JSON.stringify({ ...rounds.at(-1), answersMs: undefined })}\n`);
      await sleep(1000);
    }
  } finally {
    for (const w of c.workers) if (w.exitCode === null && w.signalCode === null) process.kill(w.pid!, 'SIGCONT');
    await synchronousCommit(admin, 'on').catch(() => undefined);
    await admin.end();
    loader.close();
    floor.kill();
    await stop(helpers);
    await stop(coldPools);
    await receiver.close();
    await c.close();
  }
  report(rounds);
}

/** PostgreSQL's synchronous_commit for every session, by a reload (the diagnosis round, then back). */
async function synchronousCommit(admin: pg.Client, value: 'on' | 'off'): Promise<void> {
  await admin.query(
    value === 'off' ? 'ALTER SYSTEM SET synchronous_commit = off' : 'ALTER SYSTEM RESET synchronous_commit',
  );
  await admin.query('SELECT pg_reload_conf()');
  // Each session reads the reloaded file before its next statement; a moment lets the signal reach them.
  await sleep(200);
}

/** The API as deployed beside the floor: each one's p99 over its p50, and whether the floor itself meets the goal. */
function floorVerdict(byCondition: Record<string, { p50: number; p99: number }>): string[] {
  const deployed = byCondition['as deployed'];
  const bare = byCondition[FLOOR];
  if (!deployed || !bare) return [];
  const meets = bare.p99 <= 5 * bare.p50 && bare.p99 < 50;
  return [
    `As deployed, the API's p99 is ${round1(deployed.p99 / deployed.p50)}x its p50; the bare writer's, on the same ` +
      `machine under the same load, ${round1(bare.p99 / bare.p50)}x: the floor ${meets ? 'meets' : 'does not meet'} ` +
      'the goal itself.',
    '',
  ];
}

/** A measure as the table shows it: the floor's API measures are not taken. */
const shown = (value: number) => (Number.isNaN(value) ? '–' : String(value));

function report(rounds: Round[]) {
  const { commit, machine, database } = runInfo();
  const measuredAt = new Date().toISOString();
  mkdirSync('bench/results', { recursive: true });
  const all = pooled(rounds);
  writeFileSync(
    `bench/results/${RESULTS}.json`,
    `${JSON.stringify(
      {
        measuredAt,
        commit,
        machine,
        database,
        pooled: all.byCondition,
        rounds: rounds.map((r) => ({ ...r, answersMs: undefined })),
      },
      null,
      2,
    )}\n`,
  );
  const cores = ({ cpuCores: c }: Round) =>
    `${c.api} / ${c.workers} / ${c.postgres} / ${c.load} / ${c.receiver} = ` +
    `${round2(c.api + c.workers + c.postgres + c.load + c.receiver)}`;
  writeFileSync(
    `bench/results/${RESULTS}.md`,
    [
      `# The API's tail at ${RATE} writes a second with a webhook (${measuredAt.slice(0, 10)}, commit ${commit})`,
      '',
      `${machine}; ${database}. An API process and two workers (production mode), one webhook to a receiver on ` +
        `loopback, GraphQL createAgent offered at ${RATE} a second for ${SECONDS} s a round, rounds alternating how ` +
        'the workers run. Beside the answer, each suspect with its instrument: the event-loop delay of the API ' +
        "(prom-client's window over the round), its garbage collection (time per second, and the collections over " +
        "10 ms), the time its event loop was ready to run and waited for a CPU (the kernel's schedstat of its main " +
        "thread, ms per second; the load's beside it), its units of work's waits for a connection " +
        '(db_pool_wait_seconds, the writer pool: waits over 5 ms, and the bucket under which 99 % fell), lock waits ' +
        `and WAL flush waits (PostgreSQL's sessions sampled every ${LOCK_SAMPLE_MS} ms, each sample counting for the interval), ` +
        'the answers over 50 ms as the load timed them (from a process of its own) and as the API did (its own histogram; ' +
        'the rest is time outside its handling), and CPU in cores: API / workers / PostgreSQL / the load / the ' +
        'receiver, summed (the machine has ' +
        `${machine.split(' ')[0]}); beside them, the machine's own CPU over the round (/proc/stat): the time the ` +
        `hypervisor took from this machine's cores (steal), ms a second and the most in one interval of about ` +
        `${LOCK_SAMPLE_MS} ms, and the cores every other process kept busy (the idle APIs, the machine's own ` +
        "services), and PostgreSQL's checkpoints that ended in the round with the time their fsyncs took " +
        '(pg_stat_checkpointer). "Commits not flushed": the workers as deployed, PostgreSQL\'s synchronous_commit off ' +
        'for the round (a diagnosis: the product\'s commits always wait for the flush). "No workers": both stopped ' +
        'for the round, two new ones started after it to deliver its writes. "Collecting with helper threads": the ' +
        "workers as deployed, the load offered to a second API process started with GC_THREADS=parallel (V8's own " +
        'way; the product collects on the event loop\'s thread, ADR 0108), idle in the other rounds. "Closing idle ' +
        'connections after 10 s": the same, a third API process started with DATABASE_IDLE_TIMEOUT=10s (pg-pool\'s own ' +
        'default; the product keeps an idle connection for ten minutes, ADR 0115). ' +
        '"The floor": the same load ' +
        "offered to bench/bare-writer.ts, the least a Node.js process can do in the API's place (one prepared INSERT a " +
        'write, its commit flushed; no token, GraphQL, event or delivery), while the API is idle and the workers have ' +
        "nothing to send; in its rows the API's columns are the bare writer's process (CPU, waits for a CPU), and the " +
        "API's own measures are not taken (–).",
      '',
      '| workers | answer p50 ms | answer p99 ms | answers > 50 ms: load / API | loop delay p99 / max ms | GC ms/s | ' +
        'GC pauses > 10 ms | waits for a CPU ms/s: API / load | ' +
        'pool waits > 5 ms | pool wait p99 ms | lock waits ms | flush waits ms | CPU cores | ' +
        'stolen ms/s: round / most in an interval | other processes, cores | checkpoints ended: n / their fsyncs ms |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...rounds.map(
        (r) =>
          `| ${r.condition} | ${r.answerP50Ms} | ${r.answerP99Ms} | ${r.slowAnswers.load} / ${shown(r.slowAnswers.api)} | ` +
          `${shown(r.loopDelayP99Ms)} / ${shown(r.loopDelayMaxMs)} | ${shown(r.gcMsPerSecond)} | ${shown(r.gcOver10Ms)} | ` +
          `${r.runQueueWaitMsPerSecond.api} / ${r.runQueueWaitMsPerSecond.load} | ${shown(r.poolWaitsOver5Ms)} | ` +
          `${shown(r.poolWaitP99Ms)} | ${r.lockWaitMs} | ${r.flushWaitMs} | ${cores(r)} | ` +
          `${shown(r.machine.stolenMsPerSecond)} / ${shown(r.machine.stolenMostMs)} | ${shown(r.machine.otherCores)} | ` +
          `${r.checkpoints.ended} / ${r.checkpoints.syncMs} |`,
      ),
      '',
      waitsByCondition(rounds),
      '',
      `Every answer of the ${ROUNDS} rounds of each condition together:`,
      '',
      '| workers | answers | p50 ms | p99 ms | p99 / p50 | goal: p99 within 5x p50 and under 50 ms |',
      '|---|---|---|---|---|---|',
      ...all.lines,
      '',
      ...floorVerdict(all.byCondition),
    ].join('\n'),
  );
}
