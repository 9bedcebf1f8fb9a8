import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeWorkerUtils } from 'graphile-worker';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { postgresCpuUs, postmasterOf, processCpuUs, runInfo } from './harness.js';
import { ADD_PEER_JOBS, type PeerJob } from './peer-job.js';
import { mutationLoad } from './mutation-load.js';
import { newDeliveryId, payloadText } from '../src/webhooks/config/payload.js';
import { queueDeliveries } from '../test/helpers/deliveries.js';
import { startTestApp, type TestApp } from '../test/helpers/app.js';
import { eventually, Receiver, sleep } from '../test/helpers/receiver.js';
import { startWorker } from '../test/helpers/worker.js';

// Webhook delivery measured black-box, as an operator runs it: one API
// process and two worker processes (the service binary, production mode) on
// one PostgreSQL, events caused by GraphQL mutations over HTTP, real
// receivers on loopback. Beside it, the bench's own baseline: the same
// deliveries by a delivery worker written on graphile-worker
// (bench/peer-worker.ts), side by side in one run (the real peer, with its own
// API, is bench/real-peer.bench.ts). Every figure is from this run; nothing is inserted to flatter a
// path except where both paths get the same queued work (the peer rows).

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 5000);
const RETRIES = Number(process.env.BENCH_RETRIES ?? 200);
const ENDPOINTS = 20;
export const CREATE_AGENT = 'mutation($n: String!) { createAgent(name: $n) { id } }';

export const percentile = (values: number[], p: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const round = (n: number) => Math.round(n * 10) / 10;
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** Peak resident memory of a process, in MiB (Linux). */
const peakRssMiB = (pid: number | undefined) => {
  try {
    return Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
  } catch {
    return null;
  }
};

/** The API and two workers as processes of the service binary, in production mode, on a fresh seeded database. */
export async function cluster(env: Record<string, string> = {}) {
  const settings = { LOG_LEVEL: 'silent', LOGIN_LIMIT_PER_IP: '100000/1m', ...env };
  const app = await startTestApp({ PROCESS_ROLE: 'api', ...settings });
  const production = { NODE_ENV: 'production', SEED_DEMO: 'false', LOG_LEVEL: 'error', ...env };
  const api = await startWorker(app, { ...production, PROCESS_ROLE: 'api' });
  const workers = await Promise.all([startWorker(app, production), startWorker(app, production)]);
  const owner = await app.login('owner@acme.test');
  const gamma = await app.login('owner@gamma.test');
  const call = async (token: string, query: string, variables: Record<string, unknown>) => {
    const res = await fetch(`${api.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { errors?: unknown[] };
    if (res.status !== 200 || body.errors)
      throw new Error(`mutation failed: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
  };
  const rest = async (token: string, method: string, route: string, body?: unknown) => {
    const res = await fetch(`${api.url}${route}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as { data?: { id: number } };
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
    return json;
  };
  const hook = async (token: string, title: string, url: string) =>
    (await rest(token, 'POST', '/api/webhooks', { title, url, events: ['agent.created'] })).data!.id;
  return {
    app,
    api,
    workers,
    owner,
    gamma,
    call,
    rest,
    hook,
    createAgent: (token: string, name: string) => call(token, CREATE_AGENT, { n: name }),
    /** A worker process more, started as these were (not in `workers`: the caller keeps it). */
    newWorker: () => startWorker(app, production),
    /** An API process more, started as `api` was with `more` beside (the caller keeps it). */
    newApi: (more: Record<string, string>) => startWorker(app, { ...production, PROCESS_ROLE: 'api', ...more }),
    workerRss: () => workers.map((w) => peakRssMiB(w.pid)),
    async close() {
      for (const child of [api, ...workers]) await stop(child);
      await app.close();
    },
  };
}

/** Stopped by SIGTERM (its attempts in flight finish first), and gone; killed after 20 s. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(20_000).then(() => child.kill('SIGKILL'))]);
}

/** `total` calls, `concurrency` at a time; calls per second. */
export async function closedLoop(
  total: number,
  concurrency: number,
  call: (i: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await call(next++);
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

/** Calls at `rate` per second for `seconds`, each on its schedule whether or not earlier ones answered; each call's answer time. */
export async function openLoop(rate: number, seconds: number, call: (i: number) => Promise<void>) {
  const total = Math.round(rate * seconds);
  const answers: number[] = [];
  let failed = 0;
  const reasons = new Set<string>();
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const sent = performance.now();
    pending.push(
      call(i).then(
        () => void answers.push(performance.now() - sent),
        (error: Error) => {
          failed++;
          if (reasons.size < 3) reasons.add(error.message.slice(0, 160));
        },
      ),
    );
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - started) / 1000;
  return {
    offered: rate,
    committedPerSecond: round(answers.length / elapsed),
    failed,
    failures: [...reasons],
    answerP50Ms: round(percentile(answers, 50)),
    answerP99Ms: round(percentile(answers, 99)),
    over50Ms: answers.filter((ms) => ms > 50).length,
    /** Every answer's time, for percentiles over several runs. */
    answersMs: answers,
  };
}

const firstAttemptMs = (received: Array<{ body: string; at: number }>) =>
  received.map((r) => r.at - Date.parse(JSON.parse(r.body).timestamp));

/**
 * Throughput and the cost of webhooks to writers: mutations per second at 10
 * concurrent with no webhook, then with twenty (each mutation then causes 20
 * deliveries, delivered meanwhile), two rounds of each, interleaved; and the
 * deliveries per second of those rounds, from the first receipt to the last.
 */
async function throughput() {
  const c = await cluster();
  const receiver = await new Receiver().start();
  try {
    const perRound = Math.ceil(DELIVERIES / ENDPOINTS);
    const hooks: number[] = [];
    for (let i = 0; i < ENDPOINTS; i++) hooks.push(await c.hook(c.owner, `Bench ${i}`, `${receiver.url}/${i}`));
    const setActive = async (active: boolean) => {
      for (const id of hooks) await c.rest(c.owner, 'PUT', `/api/webhooks/${id}`, { active });
    };
    const none: number[] = [];
    const twenty: number[] = [];
    const rates: number[] = [];
    let lastMutation = 0;
    let firstReceipt = 0;
    for (let roundNo = 0; roundNo < 2; roundNo++) {
      await setActive(false);
      none.push(await closedLoop(perRound, 10, (i) => c.createAgent(c.owner, `Quiet ${roundNo}-${i}`)));
      await setActive(true);
      const before = receiver.received.length;
      twenty.push(await closedLoop(perRound, 10, (i) => c.createAgent(c.owner, `Loud ${roundNo}-${i}`)));
      lastMutation = Date.now();
      const all = await receiver.waitFor(before + perRound * ENDPOINTS, 300_000);
      const mine = all.slice(before);
      firstReceipt = Math.min(...mine.map((r) => r.at));
      const last = Math.max(...mine.map((r) => r.at));
      rates.push(Math.round(mine.length / ((last - firstReceipt) / 1000)));
    }
    // Where the writers' time goes: the same twenty webhooks with the workers paused (SIGSTOP), so the
    // outbox's own cost in the write shows apart from the CPU the deliveries take on these two cores.
    for (const worker of c.workers) worker.kill('SIGSTOP');
    const paused = Math.round(await closedLoop(perRound, 10, (i) => c.createAgent(c.owner, `Paused ${i}`)));
    for (const worker of c.workers) worker.kill('SIGCONT');
    await receiver.waitFor(receiver.received.length + 1, 60_000);
    await eventually(
      async () =>
        (
          await c.app.sql<{ n: number }>("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'")
        )[0].n === 0
          ? true
          : undefined,
      300_000,
      'the paused round delivered',
    );
    const ids = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    return {
      deliveriesPerRound: perRound * ENDPOINTS,
      endpoints: ENDPOINTS,
      deliveriesPerSecond: rates,
      deliveriesBeganBeforeMutationsEnded: firstReceipt < lastMutation,
      duplicates: receiver.received.length - ids.size,
      mutationsPerSecondNone: none.map(Math.round),
      mutationsPerSecondTwenty: twenty.map(Math.round),
      writeRatio: ratio(mean(twenty), mean(none)),
      mutationsPerSecondTwentyWorkersPaused: paused,
      writeRatioWorkersPaused: ratio(paused, mean(none)),
      workerPeakRssMiB: c.workerRss(),
    };
  } finally {
    await receiver.close();
    await c.close();
  }
}

/** One fast endpoint offered `rate` events per second through the API: what the API commits, event to first attempt, and what is left after. */
async function oneEndpoint(rate: number) {
  const c = await cluster();
  const receiver = await new Receiver().start();
  // The load from a process of its own: the answers' times are not this process's, busy receiving (mutation-load.ts).
  const loader = await mutationLoad();
  const offered = (tag: string, seconds: number) =>
    loader.offer({ url: `${c.api.url}/graphql`, token: c.owner, query: CREATE_AGENT, tag, rate, seconds });
  try {
    const id = await c.hook(c.owner, 'One endpoint', receiver.url);
    // A second at the same rate first, unmeasured: the processes just started (their code compiled on first use,
    // their connections opened and statements prepared), as every other part warms its paths up.
    await offered('Warm', 1);
    const [{ n: warm }] = await c.app.sql<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1',
      [id],
    );
    await receiver.waitFor(warm, 60_000);
    const load = await offered('Rate', SECONDS);
    const committed =
      (
        await c.app.sql<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [id])
      )[0].n - warm;
    const arrived = (await receiver.waitFor(warm + committed, 120_000)).slice(warm);
    await sleep(1000);
    const [{ pending }] = await c.app.sql<{ pending: number }>(
      "SELECT count(*)::int AS pending FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending'",
      [id],
    );
    const latency = firstAttemptMs(arrived.filter((r) => r.headers['x-webhook-attempt'] === '1'));
    return {
      ...load,
      answersMs: undefined,
      events: committed,
      firstAttemptP50Ms: round(percentile(latency, 50)),
      firstAttemptP99Ms: round(percentile(latency, 99)),
      firstAttemptMaxMs: round(Math.max(...latency)),
      pendingAfter1s: pending,
    };
  } finally {
    loader.close();
    await receiver.close();
    await c.close();
  }
}

/** Company A: 50 hanging endpoints (3 s timeout) getting 5 events/s; company B: one fast endpoint getting 20/s. B's event to first attempt. */
async function noisyNeighbour() {
  const c = await cluster({ WEBHOOK_TIMEOUT: '3s' });
  const hanging = await new Receiver().start();
  hanging.answer = () => ({ hang: true });
  const fast = await new Receiver().start();
  try {
    for (let i = 0; i < 50; i++) await c.hook(c.owner, `Hangs ${i}`, `${hanging.url}/${i}`);
    await c.hook(c.gamma, 'Fast', fast.url);
    const [a, b] = await Promise.all([
      openLoop(5, SECONDS, (i) => c.createAgent(c.owner, `Noisy ${i}`)),
      openLoop(20, SECONDS, (i) => c.createAgent(c.gamma, `Quiet ${i}`)),
    ]);
    const arrived = await fast.waitFor(20 * SECONDS, 60_000);
    const latency = firstAttemptMs(arrived);
    return {
      hangingEndpoints: 50,
      aEventsPerSecond: 5,
      bEventsPerSecond: 20,
      aAttemptsStarted: hanging.received.length,
      bEvents: arrived.length,
      bFirstAttemptP50Ms: round(percentile(latency, 50)),
      bFirstAttemptP99Ms: round(percentile(latency, 99)),
      bFirstAttemptMaxMs: round(Math.max(...latency)),
      apiFailures: a.failed + b.failed,
    };
  } finally {
    await hanging.close();
    await fast.close();
    await c.close();
  }
}

/**
 * Both sides delivered the same messages: for each endpoint, the first
 * delivery of each side verifies with the webhook's secret (standardwebhooks)
 * and the bodies of one delivery id are the same bytes.
 */
function sameMessages(
  received: Array<{ path: string; headers: Record<string, unknown>; body: string }>,
  hooks: Array<{ secret: string }>,
): void {
  for (const [i, hook] of hooks.entries()) {
    const verifier = new StandardWebhook(hook.secret);
    const of = (prefix: string) => received.filter((r) => r.path === `${prefix}/${i}`);
    const ours = new Map(of('/sb').map((r) => [String(r.headers['webhook-id']), r]));
    const theirs = of('/peer');
    for (const r of [...ours.values()].slice(0, 5).concat(theirs.slice(0, 5)))
      verifier.verify(r.body, r.headers as Record<string, string>);
    const pair = theirs.find((r) => ours.has(String(r.headers['webhook-id'])));
    if (!pair || ours.get(String(pair.headers['webhook-id']))!.body !== pair.body)
      throw new Error(`endpoint ${i}: the peer's delivery is not the same message as Switchboard's`);
  }
}

/** Two graphile-worker processes running bench/peer-worker.ts on the app's database. */
async function peerWorkers(app: TestApp): Promise<ChildProcess[]> {
  const start = () =>
    new Promise<ChildProcess>((resolve, reject) => {
      const child = spawn(process.execPath, [path.resolve('dist/bench/peer-worker.js')], {
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: app.running.databaseUrl },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('peer worker ready')) resolve(child);
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', () => reject(new Error(`the peer worker stopped: ${output}`)));
    });
  return Promise.all([start(), start()]);
}

/**
 * Switchboard against the peer on the same queued work and the same paced
 * work: (1) DELIVERIES deliveries over 20 endpoints queued before the workers
 * start, deliveries per second from the first receipt to the last; (2) 200
 * events per second to one endpoint for SECONDS, enqueue to first attempt.
 */
async function peer() {
  const app = await startTestApp({ PROCESS_ROLE: 'api', LOG_LEVEL: 'silent' });
  const receiver = await new Receiver().start();
  const children: ChildProcess[] = [];
  const utils = await makeWorkerUtils({ connectionString: app.running.databaseUrl });
  try {
    await utils.migrate();
    const owner = await app.login('owner@acme.test');
    const [{ id: company }] = await app.sql<{ id: number }>("SELECT id FROM companies WHERE name = 'Acme Agency'");
    const hooks: Array<{ id: number; secret: string; url: string }> = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const res = await app.request('POST', '/api/webhooks', {
        token: owner,
        body: { title: `Peer ${i}`, url: `${receiver.url}/sb/${i}`, events: ['agent.created'] },
      });
      hooks.push({ id: res.body.data.id, secret: res.body.data.secret, url: `${receiver.url}/peer/${i}` });
    }
    // (1) Queued work: the same payloads as outbox rows for Switchboard and as jobs for the peer.
    const queued = await queueDeliveries(
      app,
      hooks.map((h) => h.id),
      DELIVERIES,
      'Bench',
    );
    const jobs: PeerJob[] = queued.map((d, i) => {
      const hook = hooks[i % ENDPOINTS];
      return { deliveryId: d.id, event: 'agent.created', url: hook.url, secret: hook.secret, payload: d.payload };
    });
    // The peer's jobs as its API would add them: one add_jobs call per write, as many as Switchboard's outbox rows.
    for (let i = 0; i < jobs.length; i += 500) await app.sql(ADD_PEER_JOBS, [JSON.stringify(jobs.slice(i, i + 500))]);
    const database = await postmasterOf(app);
    const rate = async (prefix: string, begin: () => Promise<ChildProcess[]>) => {
      const mine = (r: { path: string }) => r.path.startsWith(prefix);
      const started = await begin();
      children.push(...started);
      const pids = started.map((child) => child.pid!);
      const cpu = [processCpuUs(pids), postgresCpuUs(database)];
      const got = await receiver.waitFor(DELIVERIES, 300_000, mine);
      const used = [processCpuUs(pids) - cpu[0], postgresCpuUs(database) - cpu[1]];
      const times = got.map((r) => r.at);
      const perSecond = Math.round(DELIVERIES / ((Math.max(...times) - Math.min(...times)) / 1000));
      const peakRss = started.map((c) => peakRssMiB(c.pid));
      for (const child of started) await stop(child);
      return {
        perSecond,
        peakRssMiB: peakRss,
        workersCpuUsPerDelivery: Math.round(used[0] / DELIVERIES),
        databaseCpuUsPerDelivery: Math.round(used[1] / DELIVERIES),
      };
    };
    const sbThroughput = await rate('/sb/', () =>
      Promise.all([
        startWorker(app, { NODE_ENV: 'production', LOG_LEVEL: 'error' }),
        startWorker(app, { NODE_ENV: 'production', LOG_LEVEL: 'error' }),
      ]),
    );
    const peerThroughput = await rate('/peer/', () => peerWorkers(app));
    sameMessages(receiver.received, hooks);

    // (2) Paced work, 200 per second to one endpoint: Switchboard's outbox written in a transaction of
    // this process (as the API writes it), the peer's job added in one; from the event's time to its receipt.
    const { contexts } = app.running.services;
    const paced = async (
      prefix: string,
      begin: () => Promise<ChildProcess[]>,
      enqueue: (i: number, at: Date) => Promise<void>,
    ) => {
      const started = await begin();
      children.push(...started);
      const before = receiver.received.filter((r) => r.path.startsWith(prefix)).length;
      const total = 200 * SECONDS;
      await openLoop(200, SECONDS, (i) => enqueue(i, new Date()));
      const got = (await receiver.waitFor(before + total, 120_000, (r) => r.path.startsWith(prefix))).slice(before);
      for (const child of started) await stop(child);
      const latency = firstAttemptMs(got);
      return {
        events: total,
        p50Ms: round(percentile(latency, 50)),
        p99Ms: round(percentile(latency, 99)),
        maxMs: round(Math.max(...latency)),
      };
    };
    const single = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: 'Paced', url: `${receiver.url}/sb-paced`, events: ['agent.created'] },
    });
    for (const hook of hooks) await app.sql('UPDATE webhooks SET active = false WHERE id = $1', [hook.id]);
    const sbPaced = await paced(
      '/sb-paced',
      () =>
        Promise.all([
          startWorker(app, { NODE_ENV: 'production', LOG_LEVEL: 'error' }),
          startWorker(app, { NODE_ENV: 'production', LOG_LEVEL: 'error' }),
        ]),
      (i) =>
        contexts
          .forSystem(company, 'bench')
          .unitOfWork((ctx) =>
            ctx.events.record('agent.created', { agent_id: String(i), name: 'Paced', active: true, online: false }),
          ),
    );
    const secret = single.body.data.secret as string;
    const peerPaced = await paced(
      '/peer-paced',
      () => peerWorkers(app),
      async (i, at) => {
        const job: PeerJob = {
          deliveryId: newDeliveryId(),
          event: 'agent.created',
          url: `${receiver.url}/peer-paced`,
          secret,
          payload: payloadText({
            event: 'agent.created',
            occurredAt: at,
            webhookId: single.body.data.id,
            data: { agent_id: String(i), name: 'Paced', active: true, online: false },
            contact: null,
          }),
        };
        await app.sql(ADD_PEER_JOBS, [JSON.stringify([job])]);
      },
    );
    return {
      deliveries: DELIVERIES,
      switchboardPerSecond: sbThroughput.perSecond,
      peerPerSecond: peerThroughput.perSecond,
      throughputRatio: ratio(sbThroughput.perSecond, peerThroughput.perSecond),
      switchboardCpuUsPerDelivery: {
        workers: sbThroughput.workersCpuUsPerDelivery,
        database: sbThroughput.databaseCpuUsPerDelivery,
      },
      peerCpuUsPerDelivery: {
        workers: peerThroughput.workersCpuUsPerDelivery,
        database: peerThroughput.databaseCpuUsPerDelivery,
      },
      switchboardPeakRssMiB: sbThroughput.peakRssMiB,
      peerPeakRssMiB: peerThroughput.peakRssMiB,
      pacedSwitchboard: sbPaced,
      pacedPeer: peerPaced,
    };
  } finally {
    for (const child of children) await stop(child);
    await utils.release();
    await receiver.close();
    await app.close();
  }
}

/** Retries fire on time: how late after its due time each second attempt starts (never early). */
async function retryLateness() {
  const delayMs = 1000;
  const app = await startTestApp({ PROCESS_ROLE: 'api', LOG_LEVEL: 'silent' });
  const worker = await startWorker(app, {
    NODE_ENV: 'production',
    LOG_LEVEL: 'error',
    WEBHOOK_RETRY_DELAYS: `${delayMs}ms,${delayMs}ms,${delayMs}ms,${delayMs}ms`,
  });
  const receiver = await new Receiver().start();
  const seen = new Set<string>();
  receiver.answer = (r) => {
    const id = String(r.headers['webhook-id']);
    if (seen.has(id)) return { status: 200 };
    seen.add(id);
    return { status: 503 };
  };
  try {
    const owner = await app.login('owner@acme.test');
    await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: 'Retry', url: receiver.url, events: ['agent.created'] },
    });
    const [{ id: company }] = await app.sql<{ id: number }>("SELECT id FROM companies WHERE name = 'Acme Agency'");
    const { contexts } = app.running.services;
    for (let i = 0; i < RETRIES; i++) {
      await contexts
        .forSystem(company, 'bench')
        .unitOfWork((ctx) =>
          ctx.events.record('agent.created', { agent_id: String(i), name: 'Retry', active: true, online: false }),
        );
      await sleep(25);
    }
    await eventually(async () => {
      const [{ n }] = await app.sql<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'",
      );
      return n >= RETRIES ? true : undefined;
    }, 60_000);
    const rows = await app.sql<{ late: number }>(
      'SELECT extract(epoch from (attempted_at - due_at)) * 1000 AS late FROM webhook_attempts WHERE number = 2',
    );
    const late = rows.map((r) => Number(r.late));
    return {
      retries: late.length,
      delayMs,
      p50Ms: round(percentile(late, 50)),
      p99Ms: round(percentile(late, 99)),
      maxMs: round(Math.max(...late)),
      early: late.filter((l) => l < 0).length,
    };
  } finally {
    await stop(worker);
    await receiver.close();
    await app.close();
  }
}

export async function webhooksBench(): Promise<void> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const t = await throughput();
  out(
    `throughput: ${t.deliveriesPerRound} deliveries over ${t.endpoints} endpoints caused by ` +
      `${t.deliveriesPerRound / t.endpoints} mutations, ${t.deliveriesPerSecond.join(' and ')}/s; writes ` +
      `${t.mutationsPerSecondNone.join('/')} per s with no webhook, ` +
      `${t.mutationsPerSecondTwenty.join('/')} with twenty (${t.writeRatio}x), ` +
      `${t.mutationsPerSecondTwentyWorkersPaused} with twenty and the workers paused ` +
      `(${t.writeRatioWorkersPaused}x); peak RSS ${t.workerPeakRssMiB.join('/')} MiB`,
  );
  const one = await oneEndpoint(200);
  out(
    `one endpoint at 200/s offered: committed ${one.committedPerSecond}/s, answers p50 ` +
      `${one.answerP50Ms} ms p99 ${one.answerP99Ms} ms, first attempt p50 ${one.firstAttemptP50Ms} ms p99 ` +
      `${one.firstAttemptP99Ms} ms, pending after 1 s ${one.pendingAfter1s}`,
  );
  const noisy = await noisyNeighbour();
  out(
    `noisy neighbour: B first attempt p50 ${noisy.bFirstAttemptP50Ms} ms p99 ${noisy.bFirstAttemptP99Ms} ` +
      `ms max ${noisy.bFirstAttemptMaxMs} ms (${noisy.bEvents} events; A started ${noisy.aAttemptsStarted} ` +
      `hanging attempts)`,
  );
  const p = await peer();
  out(
    `peer: ${p.deliveries} queued deliveries, switchboard ${p.switchboardPerSecond}/s, graphile-worker ` +
      `${p.peerPerSecond}/s (${p.throughputRatio}x); paced 200/s p99 switchboard ` +
      `${p.pacedSwitchboard.p99Ms} ms, graphile-worker ${p.pacedPeer.p99Ms} ms`,
  );
  const retries = await retryLateness();
  out(
    `retries: ${retries.retries} retries, late p50 ${retries.p50Ms} ms, p99 ${retries.p99Ms} ms, max ${retries.maxMs} ms, early ${retries.early}`,
  );

  const { commit, machine, database } = runInfo();
  const measuredAt = new Date().toISOString();
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/webhooks.json',
    `${JSON.stringify(
      {
        measuredAt,
        commit,
        machine,
        database,
        seconds: SECONDS,
        throughput: t,
        oneEndpoint: one,
        noisyNeighbour: noisy,
        peer: p,
        retries,
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(
    'bench/results/webhooks.md',
    [
      `# Webhook delivery (${measuredAt.slice(0, 10)}, commit ${commit})`,
      '',
      `${machine}; ${database}; one API and two worker processes (production mode), receivers and ` +
        `PostgreSQL on this one machine; events caused by GraphQL mutations over HTTP unless said otherwise; ` +
        `${SECONDS} s per paced run.`,
      '',
      "The baseline (bench/peer-worker.ts) is the bench's own delivery worker on graphile-worker, fed the same queued " +
        'work; the real peer, with its own API, is `npm run bench -- peer` (bench/results/peer.md). Its jobs ' +
        'added with one `add_jobs` call per write, two processes of 32 jobs at once, jobs fetched in batches into a ' +
        'local queue and completions batched (its performance guide), fetch keeping connections alive per origin, the ' +
        'same signatures and receivers; the run checks that its deliveries verify with standardwebhooks and carry the ' +
        "same bytes as Switchboard's. CPU per delivery: the worker processes', and the PostgreSQL server's (its " +
        'postmaster and every backend, reaped ones included), over the run, divided by the deliveries.',
      '',
      '| measure | result | target |',
      '|---|---|---|',
      `| deliveries per second, 2 workers, ${t.deliveriesPerRound} deliveries over ${t.endpoints} fast ` +
        `endpoints (from ${t.deliveriesPerRound / t.endpoints} mutations), from the first receipt, two ` +
        `rounds | ${t.deliveriesPerSecond.join(', ')}/s; ${t.duplicates} duplicates; delivery began before ` +
        `the mutations ended: ${t.deliveriesBeganBeforeMutationsEnded} | at least 1,000/s |`,
      `| mutations per second at 10 concurrent, twenty webhooks subscribed / none (two rounds each, ` +
        `interleaved) | ${t.mutationsPerSecondTwenty.join(', ')} / ${t.mutationsPerSecondNone.join(', ')} = ` +
        `${t.writeRatio}x | at least 0.9x |`,
      `| the same with the workers paused (the outbox's own cost, without the deliveries' CPU) | ` +
        `${t.mutationsPerSecondTwentyWorkersPaused} / ${t.mutationsPerSecondNone.join(', ')} = ` +
        `${t.writeRatioWorkersPaused}x | |`,
      `| 200 events/s offered to one fast endpoint (after a second of them unmeasured): what the API commits | ${one.committedPerSecond}/s ` +
        `(answers, timed by a load process of its own, p50 ${one.answerP50Ms} ms, p99 ${one.answerP99Ms} ms; ${one.failed} failed` +
        `${one.failures.length ? `: ${one.failures.join('; ')}` : ''}) | at least 190/s |`,
      `| the same: event to first attempt | p50 ${one.firstAttemptP50Ms} ms, p99 ${one.firstAttemptP99Ms} ` +
        `ms, max ${one.firstAttemptMaxMs} ms; ${one.pendingAfter1s} pending 1 s after the last | p99 under ` +
        `50 ms, no backlog |`,
      `| noisy neighbour: A has 50 hanging endpoints (3 s timeout) getting 5 events/s, B one fast endpoint ` +
        `getting 20/s: B's event to first attempt | p50 ${noisy.bFirstAttemptP50Ms} ms, p99 ` +
        `${noisy.bFirstAttemptP99Ms} ms, ` +
        `max ${noisy.bFirstAttemptMaxMs} ms (A's hanging attempts started: ${noisy.aAttemptsStarted}) | p99 under 100 ms |`,
      `| the bench's own baseline (graphile-worker, 2 workers × 32, jobs added with one add_jobs per write): ` +
        `${p.deliveries} deliveries queued over ${ENDPOINTS} endpoints, 2 workers each, deliveries per second | ` +
        `Switchboard ${p.switchboardPerSecond}/s, graphile-worker ${p.peerPerSecond}/s: ` +
        `${p.throughputRatio}x | at least 1.5x |`,
      `| the same: CPU per delivery, workers / PostgreSQL | Switchboard ${p.switchboardCpuUsPerDelivery.workers} / ` +
        `${p.switchboardCpuUsPerDelivery.database} µs; graphile-worker ${p.peerCpuUsPerDelivery.workers} / ` +
        `${p.peerCpuUsPerDelivery.database} µs | PostgreSQL: half of today's |`,
      `| the baseline: 200 events/s to one endpoint for ${SECONDS} s, event to first attempt | Switchboard p50 ` +
        `${p.pacedSwitchboard.p50Ms} ms, p99 ${p.pacedSwitchboard.p99Ms} ms; graphile-worker p50 ` +
        `${p.pacedPeer.p50Ms} ms, p99 ${p.pacedPeer.p99Ms} ms | a better p99 |`,
      `| peak RSS per worker process | Switchboard ${t.workerPeakRssMiB.join(', ')} MiB (throughput run), ` +
        `${p.switchboardPeakRssMiB.join(', ')} MiB (peer run); graphile-worker ` +
        `${p.peerPeakRssMiB.join(', ')} MiB | bounded |`,
      `| retry fire time minus due time, ${retries.retries} retries | p50 ${retries.p50Ms} ms, p99 ` +
        `${retries.p99Ms} ms, max ${retries.maxMs} ms, ${retries.early} early | never early |`,
      '',
    ].join('\n'),
  );
}
