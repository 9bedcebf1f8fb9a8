import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { kill, startWorker } from '../test/helpers/worker.js';
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
// the house was rebuilt (BEFORE, a commit of main), side by side in one run on
// one database. Each is an API process of its own build: the roles page and a
// rename over REST and /graphql, in alternating rounds, after checking that
// both answer the same bytes. Then each one's two workers in turn deliver the
// events 20 webhooks receive (deliveries per second, first receipt to last),
// and each one's API answers a write at 200 a second with one webhook (p50,
// p99 of the answer), with its workers delivering and with them stopped. The other build is a git worktree under .data/, built
// with its own scripts against this checkout's node_modules.

/** main before the house issue: the last commit before its first change (BENCH_BEFORE: another commit, to find where a change came in). */
const BEFORE = process.env.BENCH_BEFORE ?? 'b82097c';
const ENDPOINTS = 20;
const EVENTS_PER_ROUND = 300;
const WRITES_PER_SECOND = 200;
const TAIL_SECONDS = 10;

/** The other build: a worktree at BEFORE, built once. */
function beforeCheckout(): string {
  const dir = path.resolve('.data', `bench-before-${BEFORE}`);
  if (existsSync(path.join(dir, 'dist', 'src', 'main.js'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  execFileSync('git', ['worktree', 'add', '--force', '--detach', dir, BEFORE], { stdio: 'ignore' });
  symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'));
  for (const script of [['scripts/compile.mjs', '--all'], ['scripts/build-web.mjs']])
    execFileSync(process.execPath, script, { cwd: dir, stdio: 'ignore' });
  return dir;
}

/** A process of a build (this checkout's or `dir`'s) on the bench's database. */
async function processOf(app: Awaited<ReturnType<typeof benchApp>>, dir: string, env: Record<string, string>) {
  const here = process.cwd();
  process.chdir(dir);
  try {
    return await startWorker(app, env);
  } finally {
    process.chdir(here);
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

export async function beforeAfterBench(): Promise<void> {
  const before = beforeCheckout();
  const app = await benchApp();
  const production = { NODE_ENV: 'production', LOG_LEVEL: 'error', SEED_DEMO: 'false' };
  const api = { ...production, PROCESS_ROLE: 'api', API_LIMIT_PER_TOKEN: 'off', API_LIMIT_PER_COMPANY: 'off' };
  const builds = { now: process.cwd(), before } as const;
  const apis = {
    now: await processOf(app, builds.now, api),
    before: await processOf(app, builds.before, api),
  };
  const receiver = await new Receiver().start();
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

    // Deliveries: 20 webhooks, each build's two workers in turn, three rounds each (ABBAAB).
    const hooks: number[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const res = await fetch(`${apis.now.url}/api/webhooks`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ title: `Bench ${i}`, url: `${receiver.url}/${i}`, events: ['agent.created'] }),
      });
      hooks.push(((await res.json()) as { data: { id: number } }).data.id);
    }
    const createAgent = (build: keyof typeof builds, name: string) =>
      fetch(`${apis[build].url}/graphql`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          query: 'mutation($n: String!) { createAgent(name: $n) { id } }',
          variables: { n: name },
        }),
      }).then(async (res) => {
        if (res.status !== 200) throw new Error(`createAgent: ${res.status} ${await res.text()}`);
      });
    const setActive = async (ids: number[], active: boolean) => {
      for (const id of ids)
        await fetch(`${apis.now.url}/api/webhooks/${id}`, {
          method: 'PUT',
          headers: json,
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
    const settled = async () => {
      for (let waited = 0; waited < 300; waited++) {
        const [{ n }] = await app.sql<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'",
        );
        if (n === 0) return;
        await sleep(1000);
      }
      throw new Error('deliveries still pending after 300 s');
    };
    for (const build of ['now', 'before', 'before', 'now', 'now', 'before'] as const) {
      const workers = [
        await processOf(app, builds[build], { ...production, PROCESS_ROLE: 'worker' }),
        await processOf(app, builds[build], { ...production, PROCESS_ROLE: 'worker' }),
      ];
      try {
        await setActive(hooks, true);
        const start = receiver.received.length;
        const database = await postmasterOf(app);
        const workerPids = workers.map((worker) => worker.pid!);
        const cpuBefore = [processCpuUs(workerPids), processCpuUs([apis[build].pid!]), postgresCpuUs(database)];
        await closedLoop(EVENTS_PER_ROUND, 10, (i) => createAgent(build, `Deliver ${build} ${start} ${i}`));
        const mine = (await receiver.waitFor(start + EVENTS_PER_ROUND * ENDPOINTS, 300_000)).slice(start);
        await settled();
        const used = cpu[build];
        used.workers += processCpuUs(workerPids) - cpuBefore[0];
        used.api += processCpuUs([apis[build].pid!]) - cpuBefore[1];
        used.database += postgresCpuUs(database) - cpuBefore[2];
        used.deliveries += mine.length;
        const times = mine.map((r) => r.at);
        delivered[build].push(Math.round(mine.length / ((Math.max(...times) - Math.min(...times)) / 1000)));
        // The write path's tail, once per build: one webhook on, writes offered at a steady rate.
        if (!tail[build]) {
          await setActive(hooks.slice(1), false);
          const load = await openLoop(WRITES_PER_SECOND, TAIL_SECONDS, (i) => createAgent(build, `Tail ${build} ${i}`));
          tail[build] = { p50: load.answerP50Ms, p99: load.answerP99Ms, failed: load.failed };
          await settled();
          // Where the tail goes: the same load with this build's workers stopped (SIGSTOP), so nothing is delivered
          // meanwhile and the API and the database have the machine's two cores to themselves.
          for (const worker of workers) worker.kill('SIGSTOP');
          const alone = await openLoop(WRITES_PER_SECOND, TAIL_SECONDS, (i) =>
            createAgent(build, `Alone ${build} ${i}`),
          );
          for (const worker of workers) worker.kill('SIGCONT');
          tail[`${build}, workers stopped`] = { p50: alone.answerP50Ms, p99: alone.answerP99Ms, failed: alone.failed };
          await settled();
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
      `this build against ${BEFORE} (main before the house issue): reads and writes over REST and GraphQL from an API ` +
        `process of each; deliveries per second of each one's two workers (${ENDPOINTS} webhooks, ` +
        `${EVENTS_PER_ROUND * ENDPOINTS} deliveries a round, three rounds each); the answer to a write offered at ` +
        `${WRITES_PER_SECOND}/s for ${TAIL_SECONDS} s with one webhook, the build's workers delivering and stopped`,
      groups,
      extra,
    );
  } finally {
    await receiver.close();
    await kill(apis.now);
    await kill(apis.before);
    await app.close();
  }
}
