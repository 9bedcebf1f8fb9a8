import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { adminQuery, createDatabase, databaseUrl } from '../test/helpers/app.js';
import { type Received, Receiver, sleep } from '../test/helpers/receiver.js';
import { postgresCpuUs, postmasterOf, processCpuUs, runInfo } from './harness.js';
import { closedLoop, cluster } from './webhooks.bench.js';

// `npm run bench -- peer`: Switchboard beside the delivery peer written on graphile-worker
// (../shared/peers/graphile-worker-delivery, its README), each as its operator runs it: one API process and two worker
// processes on a database of its own, on this machine's PostgreSQL. The peer is installed in a folder of its own outside
// the tree, with its lock file, and never copied into it. The same load to each, in alternating rounds (S P S P S P): events
// caused through each one's API, received by the same kind of receiver on loopback, every delivery's Standard Webhooks
// signature verified with the `standardwebhooks` library, duplicates and missing counted.
// (1) Saturation: twenty endpoints, events written ten at a time through the API; deliveries per second from the first
// receipt to the last. (2) One endpoint offered RATE events a second for SECONDS: the API's answer time, and the time
// from the API's answer to the delivery's receipt, and PostgreSQL's CPU per delivery. Switchboard runs twice, each on a
// database of its own: as deployed, and tuned for latency (docs/adr/0110): WEBHOOK_STREAM_WINDOW=0, a claim per commit
// (docs/adr/0109), and WORKER_NICE=0, its workers at the API's priority as the peer's are.

const PEER_SOURCE = process.env.BENCH_PEER_DIR ?? path.resolve('../shared/peers/graphile-worker-delivery');
const PEER_FILES = ['package.json', 'package-lock.json', 'peer-api.mjs', 'peer-worker.mjs'];
const ENDPOINTS = 20;
/** Events a saturation round: 20,000 deliveries, several seconds of each system at its steady rate rather than its start. */
const EVENTS = Number(process.env.BENCH_PEER_EVENTS ?? 1000);
const RATE = 200;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Switchboard as deployed (S), tuned for latency (L), and the peer (P), each order in turn. */
const ROUNDS = ['S', 'P', 'L', 'P', 'L', 'S', 'L', 'S', 'P'] as const;
// Five rounds a system: the p99 of one round moves by a factor of several on a busy two-core machine, and the verdict is
// the median of the rounds.
const ONE_ROUNDS = ['S', 'L', 'P', 'P', 'L', 'S', 'L', 'S', 'P', 'S', 'P', 'L', 'L', 'P', 'S'] as const;
/** Switchboard configured for a delivery's latency rather than its database work and the API's tail: docs/adr/0110. */
const TUNED_FOR_LATENCY = { WEBHOOK_STREAM_WINDOW: '0', WORKER_NICE: '0' };
const COMPANY = 'acme';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};
const round1 = (n: number) => Math.round(n * 10) / 10;

/** The peer installed with its lock file (npm ci) in a folder of its own, again only when its files changed. */
function installPeer(): string {
  if (!existsSync(path.join(PEER_SOURCE, 'package-lock.json')))
    throw new Error(`the peer is not at ${PEER_SOURCE} (BENCH_PEER_DIR names it)`);
  const dir = path.join(tmpdir(), 'switchboard-bench-peer');
  mkdirSync(dir, { recursive: true });
  const same = PEER_FILES.every(
    (f) =>
      existsSync(path.join(dir, f)) && readFileSync(path.join(dir, f)).equals(readFileSync(path.join(PEER_SOURCE, f))),
  );
  if (!same || !existsSync(path.join(dir, 'node_modules'))) {
    for (const f of PEER_FILES) copyFileSync(path.join(PEER_SOURCE, f), path.join(dir, f));
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'ignore' });
  }
  return dir;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function ready(url: string, child: ChildProcess, output: () => string): Promise<void> {
  for (const until = Date.now() + 60_000; Date.now() < until; ) {
    if (child.exitCode !== null) throw new Error(`the peer stopped: ${output()}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`the peer did not answer at ${url}: ${output()}`);
}

/** The peer's API and two workers on a database of their own. */
async function startPeer() {
  const dir = installPeer();
  const database = await createDatabase();
  const env = { ...process.env, DATABASE_URL: databaseUrl(database), NODE_ENV: 'production' };
  const children: ChildProcess[] = [];
  const start = async (file: string, port: number, extra: Record<string, string>) => {
    let output = '';
    const child = spawn(process.execPath, [file], { cwd: dir, env: { ...env, ...extra }, stdio: 'pipe' });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    children.push(child);
    await ready(`http://127.0.0.1:${port}/readyz`, child, () => output);
    return child;
  };
  const apiPort = await freePort();
  const api = await start('peer-api.mjs', apiPort, { PORT: String(apiPort) });
  const workers: ChildProcess[] = [];
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    workers.push(await start('peer-worker.mjs', port, { METRICS_PORT: String(port) }));
  }
  const url = `http://127.0.0.1:${apiPort}`;
  const post = async (route: string, body: unknown) => {
    const res = await fetch(`${url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`peer ${route}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { data?: { id: number; secret: string }; id?: number };
  };
  return {
    api,
    workers,
    async hook(receiverUrl: string) {
      const { data } = await post('/webhooks', { company: COMPANY, url: receiverUrl, events: ['agent.created'] });
      return { id: String(data!.id), secret: data!.secret };
    },
    async off(id: string) {
      await fetch(`${url}/webhooks/${id}`, { method: 'DELETE' });
    },
    async event(name: string) {
      await post('/events', {
        company: COMPANY,
        type: 'agent.created',
        data: { agent_id: name, name, active: true, online: false },
      });
    },
    async close() {
      for (const child of children) {
        if (child.exitCode !== null) continue;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
      }
      await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    },
  };
}

/**
 * Between rounds: what the rounds before wrote is flushed now (a CHECKPOINT), not by a checkpoint during the next
 * round, which would fall on whichever system that round measures.
 */
async function settled(): Promise<void> {
  await adminQuery('CHECKPOINT');
  await sleep(500);
}

/** Every delivery verified with its webhook's secret; the distinct messages, and the duplicates. */
function verified(received: Received[], secrets: Map<string, string>): { messages: number; duplicates: number } {
  const ids = new Set<string>();
  for (const r of received) {
    const key = r.path.split('/').pop()!;
    const secret = secrets.get(key);
    if (!secret) throw new Error(`a delivery to ${r.path}, which no webhook of the round has`);
    new StandardWebhook(secret).verify(r.body, r.headers as Record<string, string>);
    ids.add(String(r.headers['webhook-id']));
  }
  return { messages: ids.size, duplicates: received.length - ids.size };
}

type System = 'S' | 'P' | 'L';
const CPU_PARTS = {
  api: 'the API',
  workers: 'the workers',
  postgres: 'PostgreSQL',
  bench: 'the load and the receivers (one process)',
};
/** A saturation round: deliveries per second, duplicates, and each part's CPU per delivery (µs). */
interface Saturation {
  system: System;
  perSecond: number;
  duplicates: number;
  cpuUs: { api: number; workers: number; postgres: number; bench: number };
}

export async function realPeerBench(): Promise<void> {
  const sb = await cluster();
  const tuned = await cluster(TUNED_FOR_LATENCY);
  const peer = await startPeer();
  // A receiver each: Switchboard's deliveries are checked against openapi.json as they arrive; the peer's are its own
  // shape, checked by their signatures only.
  const receivers: Record<System, Receiver> = {
    S: await new Receiver().start(),
    P: await new Receiver().start(),
    L: await new Receiver().start(),
  };
  try {
    // (1) Saturation: twenty endpoints each.
    const secrets = new Map<string, string>();
    const sbHooks: number[] = [];
    const tunedHooks: number[] = [];
    const peerHooks: string[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const res = await sb.rest(sb.owner, 'POST', '/api/webhooks', {
        title: `Saturation ${i}`,
        url: `${receivers.S.url}/sat-${i}`,
        events: ['agent.created'],
      });
      const id = (res.data as unknown as { id: number; secret: string }).id;
      sbHooks.push(id);
      secrets.set(`sat-${i}`, (res.data as unknown as { secret: string }).secret);
      const l = await tuned.rest(tuned.owner, 'POST', '/api/webhooks', {
        title: `Saturation ${i}`,
        url: `${receivers.L.url}/lsat-${i}`,
        events: ['agent.created'],
      });
      tunedHooks.push((l.data as unknown as { id: number }).id);
      secrets.set(`lsat-${i}`, (l.data as unknown as { secret: string }).secret);
      const p = await peer.hook(`${receivers.P.url}/psat-${i}`);
      peerHooks.push(p.id);
      secrets.set(`psat-${i}`, p.secret);
    }
    const write: Record<System, (i: number, tag: string) => Promise<void>> = {
      S: (i, tag) => sb.createAgent(sb.owner, `${tag} ${i}`),
      P: (i, tag) => peer.event(`${tag} ${i}`),
      L: (i, tag) => tuned.createAgent(tuned.owner, `${tag} ${i}`),
    };
    const saturation: Saturation[] = [];
    const postmaster = await postmasterOf(sb.app);
    const pids: Record<System, { api: number[]; workers: number[] }> = {
      S: { api: [sb.api.pid!], workers: sb.workers.map((w) => w.pid!) },
      P: { api: [peer.api.pid!], workers: peer.workers.map((w) => w.pid!) },
      L: { api: [tuned.api.pid!], workers: tuned.workers.map((w) => w.pid!) },
    };
    // The CPU (µs) each part has used so far: the API, the workers, PostgreSQL, and this process (the load and the receivers).
    const cpu = (system: System) => ({
      api: processCpuUs(pids[system].api),
      workers: processCpuUs(pids[system].workers),
      postgres: postgresCpuUs(postmaster),
      bench: process.cpuUsage().user + process.cpuUsage().system,
    });
    // A round of each unmeasured first: processes warm, statements prepared, connections open.
    for (const system of ['S', 'P', 'L', ...ROUNDS] as System[]) {
      const tag = `sat-${saturation.length}-${system}`;
      const cpuBefore = cpu(system);
      await closedLoop(EVENTS, 10, (i) => write[system](i, tag));
      const got = await receivers[system].waitFor(EVENTS * ENDPOINTS, 300_000);
      const cpuAfter = cpu(system);
      const { messages, duplicates } = verified(got, secrets);
      // What was received is let go once verified: kept, it would grow this process's heap, and its collections
      // would delay the load and the receipts of the rounds after.
      receivers[system].received.splice(0);
      if (messages !== EVENTS * ENDPOINTS)
        throw new Error(`${system}: ${messages} of ${EVENTS * ENDPOINTS} deliveries arrived`);
      const times = got.map((r) => r.at);
      const perDelivery = (part: keyof typeof cpuAfter) => Math.round((cpuAfter[part] - cpuBefore[part]) / messages);
      saturation.push({
        system,
        perSecond: Math.round(messages / ((Math.max(...times) - Math.min(...times)) / 1000)),
        duplicates,
        cpuUs: {
          api: perDelivery('api'),
          workers: perDelivery('workers'),
          postgres: perDelivery('postgres'),
          bench: perDelivery('bench'),
        },
      });
      await settled();
    }
    saturation.splice(0, 3);
    for (const id of sbHooks) await sb.rest(sb.owner, 'PUT', `/api/webhooks/${id}`, { active: false });
    for (const id of tunedHooks) await tuned.rest(tuned.owner, 'PUT', `/api/webhooks/${id}`, { active: false });
    for (const id of peerHooks) await peer.off(id);

    // (2) One endpoint at RATE events a second: the API's answer, and from the answer to the receipt.
    const s1 = await sb.rest(sb.owner, 'POST', '/api/webhooks', {
      title: 'One endpoint',
      url: `${receivers.S.url}/one`,
      events: ['agent.created'],
    });
    secrets.set('one', (s1.data as unknown as { secret: string }).secret);
    const p1 = await peer.hook(`${receivers.P.url}/pone`);
    secrets.set('pone', p1.secret);
    const l1 = await tuned.rest(tuned.owner, 'POST', '/api/webhooks', {
      title: 'One endpoint',
      url: `${receivers.L.url}/lone`,
      events: ['agent.created'],
    });
    secrets.set('lone', (l1.data as unknown as { secret: string }).secret);
    const oneEndpoint: Array<{
      system: System;
      answerP50Ms: number;
      answerP99Ms: number;
      receiptP50Ms: number;
      receiptP99Ms: number;
      postgresUs: number;
    }> = [];
    for (const system of ['S', 'L', 'P', ...ONE_ROUNDS] as System[]) {
      const tag = `one-${oneEndpoint.length}-${system}`;
      const total = RATE * (oneEndpoint.length < 3 ? 1 : SECONDS);
      const postgresBefore = postgresCpuUs(postmaster);
      const answered = new Map<string, number>();
      const answers: number[] = [];
      const started = performance.now();
      const pending: Promise<void>[] = [];
      for (let i = 0; i < total; i++) {
        const wait = started + (i * 1000) / RATE - performance.now();
        if (wait > 0) await sleep(wait);
        const sent = performance.now();
        pending.push(
          write[system](i, tag).then(() => {
            answers.push(performance.now() - sent);
            answered.set(`${tag} ${i}`, Date.now());
          }),
        );
      }
      await Promise.all(pending);
      const mine = (r: Received) => r.body.includes(`"${tag} `);
      const got = (await receivers[system].waitFor(total, 120_000, mine)).filter(mine);
      const { messages } = verified(got, secrets);
      receivers[system].received.splice(0);
      if (messages !== total) throw new Error(`${system}: ${messages} of ${total} deliveries arrived`);
      const receipt = got.map((r) => r.at - answered.get(JSON.parse(r.body).data.name)!);
      oneEndpoint.push({
        system,
        answerP50Ms: round1(percentile(answers, 50)),
        answerP99Ms: round1(percentile(answers, 99)),
        receiptP50Ms: round1(percentile(receipt, 50)),
        receiptP99Ms: round1(percentile(receipt, 99)),
        postgresUs: Math.round((postgresCpuUs(postmaster) - postgresBefore) / total),
      });
      await settled();
    }
    oneEndpoint.splice(0, 3);
    report(saturation, oneEndpoint);
  } finally {
    receivers.P.violations.splice(0);
    await receivers.P.close();
    await receivers.S.close();
    await receivers.L.close();
    await peer.close();
    await tuned.close();
    await sb.close();
  }
}

function report(
  saturation: Saturation[],
  oneEndpoint: Array<{
    system: System;
    answerP50Ms: number;
    answerP99Ms: number;
    receiptP50Ms: number;
    receiptP99Ms: number;
    postgresUs: number;
  }>,
) {
  const of = <T extends { system: System }>(rows: T[], system: System) => rows.filter((r) => r.system === system);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const ratioOf = (system: System) =>
    Math.round(
      (mean(of(saturation, system).map((r) => r.perSecond)) / mean(of(saturation, 'P').map((r) => r.perSecond))) * 100,
    ) / 100;
  const ratio = ratioOf('S');
  const tunedRatio = ratioOf('L');
  const cpuList = (system: System, part: keyof Saturation['cpuUs']) =>
    of(saturation, system)
      .map((r) => r.cpuUs[part])
      .join(', ');
  /** The median of a system's rounds: one disturbed round (a checkpoint, another guest) decides neither way. */
  const typical = (system: System, key: 'answerP99Ms' | 'receiptP99Ms') =>
    percentile(
      of(oneEndpoint, system).map((r) => r[key]),
      50,
    );
  const list = (system: System, key: keyof (typeof oneEndpoint)[number]) =>
    of(oneEndpoint, system)
      .map((r) => r[key])
      .join(', ');
  process.stdout.write(
    `peer: saturation switchboard ${of(saturation, 'S')
      .map((r) => r.perSecond)
      .join('/')}/s, ` +
      `graphile-worker ${of(saturation, 'P')
        .map((r) => r.perSecond)
        .join('/')}/s (${ratio}x); one endpoint ` +
      `receipt p99 ${list('S', 'receiptP99Ms')} (tuned for latency: ${list('L', 'receiptP99Ms')}, ${tunedRatio}x at ` +
      `saturation) against ${list('P', 'receiptP99Ms')} ms\n`,
  );
  const lists = (key: keyof (typeof oneEndpoint)[number]) =>
    (['S', 'L', 'P'] as const).map((s) => list(s, key)).join(' | ');
  const met = (ok: boolean) => (ok ? 'met' : '**not met**');
  const beats = (system: System) => typical(system, 'receiptP99Ms') <= typical('P', 'receiptP99Ms');
  const verdicts = `as deployed ${met(beats('S'))}, tuned for latency ${met(beats('L'))}`;
  const perSecond = (system: System) =>
    of(saturation, system)
      .map((r) => r.perSecond)
      .join(', ');
  const duplicates = (system: System) =>
    of(saturation, system)
      .map((r) => r.duplicates)
      .join(', ');
  const { commit, machine, database } = runInfo();
  const measuredAt = new Date().toISOString();
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/peer.json',
    `${JSON.stringify({ measuredAt, commit, machine, database, saturation, oneEndpoint, ratio, tunedRatio }, null, 2)}\n`,
  );
  writeFileSync(
    'bench/results/peer.md',
    [
      `# Switchboard beside the graphile-worker delivery peer (${measuredAt.slice(0, 10)}, commit ${commit})`,
      '',
      `${machine}; ${database}. Each system as its operator runs it: one API process and two workers on a database ` +
        'of its own, on one PostgreSQL; the peer from ../shared/peers/graphile-worker-delivery, installed with its ' +
        'lock file. Switchboard twice, each on a database of its own: as deployed (S), and tuned for latency (L: ' +
        'WEBHOOK_STREAM_WINDOW=0, a claim per commit, and WORKER_NICE=0, its workers at the priority of the ' +
        `API's, as the peer's are; docs/adr/0110). Rounds alternated ${ROUNDS.join(' ')} after one of each unmeasured ` +
        `(one endpoint: ${ONE_ROUNDS.join(' ')}), each after a CHECKPOINT, so that no round flushes the writes of those ` +
        'before it; every delivery verified with ' +
        '`standardwebhooks`. (1) Twenty endpoints, ' +
        `${EVENTS} events through the API ten at a time (${EVENTS * ENDPOINTS} deliveries a round, several seconds of ` +
        `each system's steady rate), from the first receipt to the last. (2) One endpoint offered ${RATE} events a ` +
        `second for ${SECONDS} s: the API's answer, ` +
        "and from the API's answer to the delivery's receipt (below zero when the delivery arrived before the writer " +
        'had its answer), and the CPU of every PostgreSQL process over the round per delivery (the server holds ' +
        "every system's database; the idle ones only poll). Where an API answers in hundreds of milliseconds, it " +
        'was not keeping up with the rate offered.',
      '',
      '| measure | Switchboard | Switchboard, tuned for latency | graphile-worker peer | goal |',
      '|---|---|---|---|---|',
      `| saturation, deliveries per second | ${perSecond('S')} | ${perSecond('L')} | ${perSecond('P')} | ` +
        `at least 1.5x: as deployed ${ratio}x, ${met(ratio >= 1.5)}; tuned for latency ${tunedRatio}x, ` +
        `${met(tunedRatio >= 1.5)} |`,
      `| duplicates at saturation | ${duplicates('S')} | ${duplicates('L')} | ` + `${duplicates('P')} | none |`,
      ...(['api', 'workers', 'postgres', 'bench'] as const).map(
        (part) =>
          `| saturation, CPU per delivery µs: ${CPU_PARTS[part]} | ${cpuList('S', part)} | ${cpuList('L', part)} | ` +
          `${cpuList('P', part)} | |`,
      ),
      `| one endpoint, answer to receipt p50 ms | ${lists('receiptP50Ms')} | |`,
      `| one endpoint, answer to receipt p99 ms | ${lists('receiptP99Ms')} | no higher than the peer's (medians of the rounds): ` +
        `${verdicts} |`,
      `| one endpoint, PostgreSQL CPU per delivery µs | ${lists('postgresUs')} | |`,
      `| one endpoint, the API's answer p50 ms | ${lists('answerP50Ms')} | |`,
      `| one endpoint, the API's answer p99 ms | ${lists('answerP99Ms')} | ` +
        'Switchboard: within 5x its p50 and under 50 ms |',
      '',
    ].join('\n'),
  );
}
