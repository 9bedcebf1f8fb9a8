import { type ChildProcess, execFileSync } from 'node:child_process';
import pg from 'pg';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { kill, startWorker } from '../test/helpers/worker.js';
import { createDatabase, databaseUrl, loginThrough } from '../test/helpers/app.js';
import { Receiver, sleep } from '../test/helpers/receiver.js';
import {
  assertSameAnswer,
  benchApp,
  measure,
  postgresCpuUs,
  postmasterOf,
  processCpuUs,
  report,
  type Result,
  type Scenario,
} from './harness.js';
import { closedLoop, openLoop } from './webhooks.bench.js';

// `npm run bench -- before-after`: the service as it is and as it was before
// its data layer moved onto the entities (ENTITIES_BEFORE, a commit of main), side by side in one run on
// one database. Each is an API process of its own build: the roles page and a
// rename over REST and /graphql, in alternating rounds, after checking that
// both answer the same bytes. Then each one's two workers in turn deliver the
// events 20 webhooks receive (deliveries per second, first receipt to last),
// and each one's API answers a write at 200 a second with one webhook (p50,
// p99 of the answer), with its workers delivering and with them stopped. The other build is a git worktree under .data/, built
// with its own scripts against this checkout's node_modules.

/** main before the house issue: the last commit before its first change (BENCH_BEFORE: another commit, to find where a change came in). */
export const BEFORE = process.env.BENCH_BEFORE ?? 'b82097c';
/** main before the entities issue (63): the last commit before its first change (BENCH_BEFORE too). */
export const ENTITIES_BEFORE = process.env.BENCH_BEFORE ?? 'a6303e8';
const ENDPOINTS = 20;
const EVENTS_PER_ROUND = 300;
const WRITES_PER_SECOND = 200;
const TAIL_SECONDS = 10;

/** The other build: a worktree at `commit` (BEFORE unless named), built once. */
export function beforeCheckout(commit = BEFORE): string {
  const dir = path.resolve('.data', `bench-before-${commit}`);
  if (existsSync(path.join(dir, 'dist', 'src', 'main.js'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  execFileSync('git', ['worktree', 'add', '--force', '--detach', dir, commit], { stdio: 'ignore' });
  symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'));
  for (const script of [['scripts/compile.mjs', '--all'], ['scripts/build-web.mjs']])
    execFileSync(process.execPath, script, { cwd: dir, stdio: 'ignore' });
  return dir;
}

/** A process of a build (this checkout's or `dir`'s) on the bench's database. */
export async function processOf(app: Awaited<ReturnType<typeof benchApp>>, dir: string, env: Record<string, string>) {
  const here = process.cwd();
  process.chdir(dir);
  try {
    return await startWorker(app, env);
  } finally {
    process.chdir(here);
  }
}

/**
 * A database of a build's own (BEFORE's by default), made by its seed command (its migrations and demo data): the
 * build runs on the schema it was written for, so that this build's schema can change; and no other process
 * listens on it (PostgreSQL wakes every listening session of a database at each NOTIFY, so the bench's own
 * service would cost the build it shared a database with). Returns its URL.
 */
export async function buildDatabase(
  app: Awaited<ReturnType<typeof benchApp>>,
  dir = beforeCheckout(),
): Promise<string> {
  const url = databaseUrl(await createDatabase());
  execFileSync(process.execPath, ['dist/src/seed/cli.js'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: url,
      APP_KEY: app.config.appKey.toString('base64'),
      JWT_SECRET: app.config.jwtSecret,
      LOG_LEVEL: 'error',
    },
    stdio: 'ignore',
  });
  return url;
}

/** An agent made through a build's API process (GraphQL createAgent): an agent.created event. */
export const agentThrough = (url: string, headers: Record<string, string>, name: string) =>
  fetch(`${url}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: 'mutation($n: String!) { createAgent(name: $n) { id } }', variables: { n: name } }),
  }).then(async (res) => {
    if (res.status !== 200) throw new Error(`createAgent: ${res.status} ${await res.text()}`);
  });

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

export async function beforeAfterBench(): Promise<void> {
  const before = beforeCheckout(ENTITIES_BEFORE);
  const app = await benchApp();
  const production = { NODE_ENV: 'production', LOG_LEVEL: 'error', SEED_DEMO: 'false' };
  const api = { ...production, PROCESS_ROLE: 'api', API_LIMIT_PER_TOKEN: 'off', API_LIMIT_PER_COMPANY: 'off' };
  const builds = { now: process.cwd(), before } as const;
  const apis = {
    now: await processOf(app, builds.now, api),
    before: await processOf(app, builds.before, api),
  };
  const receiver = await new Receiver().start();
  const others: ChildProcess[] = [];
  const pools: pg.Pool[] = [];
  try {
    const token = await app.login('owner@acme.test');
    const [acme] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
    await app.sql(
      `INSERT INTO roles (company_id, title, is_owner, created_at, updated_at)
       SELECT $1, 'Bench role ' || g, false, now() - g * interval '1 minute', now() FROM generate_series(1, 200) g`,
      [acme.id],
    );
    const writable = (await app.sql("SELECT id FROM roles WHERE title LIKE 'Bench role %' ORDER BY id LIMIT 100")).map(
      (r) => String(r.id),
    );
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const paths = (build: keyof typeof builds) => {
      const { url, pid } = apis[build];
      return {
        'read REST': { name: build, url: `${url}/api/roles?per_page=15`, headers: auth, pid },
        'read GraphQL': {
          name: build,
          url: `${url}/graphql`,
          method: 'POST',
          headers: json,
          body: JSON.stringify({ query: '{ roles(page: 1, perPage: 15) { records { id title createdAt } } }' }),
          pid,
        },
        'write REST': {
          name: build,
          url: `${url}/api/roles/{v}`,
          method: 'PUT',
          headers: json,
          bodyTemplate: `{"title":"Renamed REST ${build} {n}"}`,
          cycle: writable,
          pid,
        },
        'write GraphQL': {
          name: build,
          url: `${url}/graphql`,
          method: 'POST',
          headers: json,
          bodyTemplate:
            '{"query":"mutation Rename($id: ID!, $title: String!) { updateRole(id: $id, input: { title: $title ' +
            `}) { id } }","variables":{"id":"{v}","title":"Renamed GraphQL ${build} {n}"}}`,
          cycle: writable,
          pid,
        },
      } satisfies Record<string, Scenario>;
    };
    const now = paths('now');
    const then = paths('before');
    await assertSameAnswer(now['read REST'], then['read REST']);
    await assertSameAnswer(now['read GraphQL'], then['read GraphQL']);
    const groups: Record<string, Record<string, Result>> = {};
    for (const scenario of Object.keys(now) as Array<keyof typeof now>) {
      process.stdout.write(`${scenario}\n`);
      groups[scenario] = await measure([now[scenario], then[scenario]]);
    }

    // Deliveries: 20 webhooks, each build's two workers in turn, three rounds each (ABBAAB), each build on a database
    // of its own schema (the reads and writes above touch tables both builds share): its API process, its webhooks.
    const beforePool = new pg.Pool({ connectionString: await buildDatabase(app, before), max: 2 });
    pools.push(beforePool);
    const beforeApi = await processOf(app, builds.before, {
      ...api,
      DATABASE_URL: beforePool.options.connectionString!,
    });
    others.push(beforeApi);
    const sites = {
      now: { url: apis.now.url, pid: apis.now.pid!, json, sql: app.sql.bind(app), env: {} },
      before: {
        url: beforeApi.url,
        pid: beforeApi.pid!,
        json: { authorization: `Bearer ${await loginThrough(beforeApi.url)}`, 'content-type': 'application/json' },
        sql: async (text: string) => (await beforePool.query(text)).rows,
        env: { DATABASE_URL: beforePool.options.connectionString! },
      },
    };
    const hooks: Record<keyof typeof builds, number[]> = { now: [], before: [] };
    for (const build of ['now', 'before'] as const)
      for (let i = 0; i < ENDPOINTS; i++) {
        const res = await fetch(`${sites[build].url}/api/webhooks`, {
          method: 'POST',
          headers: sites[build].json,
          body: JSON.stringify({ title: `Bench ${i}`, url: `${receiver.url}/${i}`, events: ['agent.created'] }),
        });
        hooks[build].push(((await res.json()) as { data: { id: number } }).data.id);
      }
    const createAgent = (build: keyof typeof builds, name: string) =>
      agentThrough(sites[build].url, sites[build].json, name);
    const setActive = async (build: keyof typeof builds, ids: number[], active: boolean) => {
      for (const id of ids)
        await fetch(`${sites[build].url}/api/webhooks/${id}`, {
          method: 'PUT',
          headers: sites[build].json,
          body: JSON.stringify({ active }),
        });
    };
    const delivered: Record<string, number[]> = { now: [], before: [] };
    /** CPU per delivery (µs) over the rounds of each build: its workers, its API process, PostgreSQL. */
    const cpu: Record<string, { workers: number; api: number; database: number; deliveries: number }> = {
      now: { workers: 0, api: 0, database: 0, deliveries: 0 },
      before: { workers: 0, api: 0, database: 0, deliveries: 0 },
    };
    const tail: Record<string, { p50: number; p99: number; failed: number }> = {};
    /** Every delivery made so far has been delivered (so a round counts only its own). */
    const settled = async (build: keyof typeof builds) => {
      for (let waited = 0; waited < 300; waited++) {
        const [{ n }] = await sites[build].sql(
          "SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'",
        );
        if (n === 0) return;
        await sleep(1000);
      }
      throw new Error('deliveries still pending after 300 s');
    };
    for (const build of ['now', 'before', 'before', 'now', 'now', 'before'] as const) {
      const workers = [
        await processOf(app, builds[build], { ...production, PROCESS_ROLE: 'worker', ...sites[build].env }),
        await processOf(app, builds[build], { ...production, PROCESS_ROLE: 'worker', ...sites[build].env }),
      ];
      try {
        await setActive(build, hooks[build], true);
        const start = receiver.received.length;
        const database = await postmasterOf(app);
        const workerPids = workers.map((worker) => worker.pid!);
        const cpuBefore = [processCpuUs(workerPids), processCpuUs([sites[build].pid]), postgresCpuUs(database)];
        await closedLoop(EVENTS_PER_ROUND, 10, (i) => createAgent(build, `Deliver ${build} ${start} ${i}`));
        const mine = (await receiver.waitFor(start + EVENTS_PER_ROUND * ENDPOINTS, 300_000)).slice(start);
        await settled(build);
        const used = cpu[build];
        used.workers += processCpuUs(workerPids) - cpuBefore[0];
        used.api += processCpuUs([sites[build].pid]) - cpuBefore[1];
        used.database += postgresCpuUs(database) - cpuBefore[2];
        used.deliveries += mine.length;
        const times = mine.map((r) => r.at);
        delivered[build].push(Math.round(mine.length / ((Math.max(...times) - Math.min(...times)) / 1000)));
        // The write path's tail, once per build: one webhook on, writes offered at a steady rate.
        if (!tail[build]) {
          await setActive(build, hooks[build].slice(1), false);
          const load = await openLoop(WRITES_PER_SECOND, TAIL_SECONDS, (i) => createAgent(build, `Tail ${build} ${i}`));
          tail[build] = { p50: load.answerP50Ms, p99: load.answerP99Ms, failed: load.failed };
          await settled(build);
          // Where the tail goes: the same load with this build's workers stopped (SIGSTOP), so nothing is delivered
          // meanwhile and the API and the database have the machine's two cores to themselves.
          for (const worker of workers) worker.kill('SIGSTOP');
          const alone = await openLoop(WRITES_PER_SECOND, TAIL_SECONDS, (i) =>
            createAgent(build, `Alone ${build} ${i}`),
          );
          for (const worker of workers) worker.kill('SIGCONT');
          tail[`${build}, workers stopped`] = { p50: alone.answerP50Ms, p99: alone.answerP99Ms, failed: alone.failed };
          await settled(build);
        }
      } finally {
        for (const worker of workers) await kill(worker);
      }
    }
    const extra: Record<string, number> = {};
    for (const [scenario, results] of Object.entries(groups))
      extra[`${scenario} now/before`] = ratio(results.now.rps, results.before.rps);
    extra['deliveries per second now'] = Math.round(mean(delivered.now));
    extra['deliveries per second before'] = Math.round(mean(delivered.before));
    extra['deliveries now/before'] = ratio(mean(delivered.now), mean(delivered.before));
    for (const build of ['now', 'before'] as const) {
      const used = cpu[build];
      extra[`workers' CPU per delivery µs ${build}`] = Math.round(used.workers / used.deliveries);
      extra[`API's CPU per delivery µs ${build}`] = Math.round(used.api / used.deliveries);
      extra[`PostgreSQL's CPU per delivery µs ${build}`] = Math.round(used.database / used.deliveries);
    }
    for (const [what, figures] of Object.entries(tail)) {
      extra[`write at ${WRITES_PER_SECOND}/s p50 ms ${what}`] = figures.p50;
      extra[`write at ${WRITES_PER_SECOND}/s p99 ms ${what}`] = figures.p99;
      extra[`write at ${WRITES_PER_SECOND}/s failed ${what}`] = figures.failed;
    }
    report(
      'before-after',
      `this build against ${ENTITIES_BEFORE} (main before the entities): reads and writes over REST and GraphQL from an API ` +
        `process of each; deliveries per second of each one's two workers, on a database of its own schema (${ENDPOINTS} webhooks, ` +
        `${EVENTS_PER_ROUND * ENDPOINTS} deliveries a round, three rounds each); the answer to a write offered at ` +
        `${WRITES_PER_SECOND}/s for ${TAIL_SECONDS} s with one webhook, the build's workers delivering and stopped`,
      groups,
      extra,
    );
  } finally {
    await receiver.close();
    for (const child of [apis.now, apis.before, ...others]) await kill(child);
    for (const pool of pools) await pool.end();
    await app.close();
  }
}
