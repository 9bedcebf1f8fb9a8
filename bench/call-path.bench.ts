import { fork } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { toBase64Id } from '../src/kernel/ids.js';
import { instructionFor, readInstruction } from '../src/telco/instructions.js';
import { SIGNATURE_HEADER, telcoSignature } from '../src/telco/signature.js';
import { startTestApp } from '../test/helpers/app.js';
import { startWorker } from '../test/helpers/worker.js';
import { eventually } from '../test/helpers/receiver.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { topFrames, topPlaces } from './cpu-profile.js';
import { postgresCpuUs, postmasterOf, processCpuUs, runInfo } from './harness.js';
import { openLoop } from './webhooks.bench.js';
import type { GcPause, SplitRecord } from './split-probe.js';

// Decisions in the call path (docs/call-routing.md), measured as an operator
// runs them: one API process in production mode, the provider's signed
// inbound callbacks at 100 a second from this process over kept-alive
// connections, and a decision endpoint on loopback that answers after 1 ms.
// Before timing, one call is checked: the instruction is the markup of the
// endpoint's decision, and the endpoint's request verifies with standardwebhooks.
// The runs: the endpoint answering (what Switchboard adds to the endpoint's
// own time, per call: the callback's round trip less the endpoint's time from
// the request's arrival to its answer's end), at that rate and one call at a
// time, and one at a time again in turns with the floor (bare-proxy.ts), whose
// figures give the goal's verdict; an agent's tool called during a call, the same two ways; the endpoint
// hanging with a 200 ms deadline (the fallback's answer time against the
// deadline), and the breaker open (the fallback without asking).

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATE = Number(process.env.BENCH_CALL_RATE ?? 100);
const DEADLINE_MS = 200;
const CALLER = '+14155550177';
/** Calls of the one-at-a-time run. */
const SEQUENTIAL = 500;
/** One at a time in turns with the floor: the rounds, each a turn of each, and the calls of a turn. */
const TURNS = 20;
const TURN = 50;
/** Longer than the call path puts its records off (services/calls/quiet-moments.ts): a run's CPU includes them. */
const RECORDS_WRITTEN_MS = 300;
/** A call that adds this much or more is over the goal's p99: the split says how many a collection overlapped. */
const SLOW_MS = 5;
const round = (n: number) => Math.round(n * 10) / 10;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
};
const stats = (values: number[]) => ({
  n: values.length,
  p50: round(percentile(values, 50)),
  p99: round(percentile(values, 99)),
  max: round(Math.max(...values)),
});

/** The decision endpoint: answers after 1 ms (or never), and keeps each request's own time by call. */
async function decisionEndpoint() {
  const own = new Map<string, number>();
  const bodies: Array<{ body: string; headers: http.IncomingHttpHeaders }> = [];
  const toolBodies: Array<{ body: string; headers: http.IncomingHttpHeaders }> = [];
  const hanging = new Set<http.ServerResponse>();
  const state = { hang: false, answer: JSON.stringify({ action: 'answer', variables: { first_name: 'Ada' } }) };
  const toolAnswer = JSON.stringify({ result: { slots: ['15:00', '16:30'] } });
  const server = http.createServer((req, res) => {
    const arrived = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'OPTIONS') return res.writeHead(204).end();
      const body = Buffer.concat(chunks).toString('utf8');
      const asked = JSON.parse(body) as { type: string; data: { call_sid: string; arguments?: { n: number } } };
      if (asked.type === 'tool.call') {
        // A tool call: its own time kept by call and argument; its result after 1 ms.
        const key = `${asked.data.call_sid}#${asked.data.arguments?.n}`;
        if (toolBodies.length < 1) toolBodies.push({ body, headers: req.headers });
        res.on('finish', () => own.set(key, performance.now() - arrived));
        return void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(toolAnswer), 1);
      }
      if (bodies.length < 1) bodies.push({ body, headers: req.headers });
      const sid = asked.data.call_sid;
      if (state.hang) return void hanging.add(res);
      res.on('finish', () => own.set(sid, performance.now() - arrived));
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(state.answer), 1);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/decide`,
    own,
    bodies,
    toolBodies,
    state,
    toolAnswer,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export async function callPathBench(): Promise<void> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const app = await startTestApp({ PROCESS_ROLE: 'api', LOG_LEVEL: 'silent' });
  const endpoint = await decisionEndpoint();
  // Both answering processes keep where their time goes one call at a time (split-probe.ts).
  const splitDir = mkdtempSync(path.join(tmpdir(), 'sb-call-split-'));
  const probe = ['--import', pathToFileURL(path.resolve('dist/bench/split-probe.js')).href];
  const api = await startWorker(
    app,
    {
      NODE_ENV: 'production',
      SEED_DEMO: 'false',
      LOG_LEVEL: 'error',
      PROCESS_ROLE: 'api',
      DECISION_BREAKER_OPEN: '100ms',
      SPLIT_PROBE_FILE: path.join(splitDir, 'api.json'),
    },
    probe,
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const bare = fork(path.resolve('dist/bench/bare-proxy.js'), [endpoint.url], {
    execArgv: probe,
    env: { ...process.env, SPLIT_PROBE_FILE: path.join(splitDir, 'floor.json') },
  });
  const proxy = { port: new Promise<number>((resolve) => bare.once('message', (port) => resolve(port as number))) };
  try {
    const owner = await app.login('owner@acme.test');
    const rest = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${api.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${owner}` },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data: { id: string; secret: string } };
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    };
    const created = await rest('POST', '/api/decision-endpoints', { url: endpoint.url, fallback_action: 'reject' });
    const account = await app.providerAccount();
    const [{ phone_no: number }] = await app.sql<{ phone_no: string }>(
      'SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1',
      [account.companyId],
    );
    const target = `${api.url}/api/telco/voice/inbound`;
    const postmaster = await postmasterOf(app);
    const floorPid = bare.pid!;
    /** CPU (µs) per call of the API process, PostgreSQL and the floor's process over `calls` calls made by `run`, their records written. */
    const cpuPerCall = async (calls: number, run: () => Promise<unknown>) => {
      const before = [processCpuUs([api.pid!]), postgresCpuUs(postmaster), processCpuUs([floorPid])];
      await run();
      await new Promise((resolve) => setTimeout(resolve, RECORDS_WRITTEN_MS));
      const after = [processCpuUs([api.pid!]), postgresCpuUs(postmaster), processCpuUs([floorPid])];
      const [api_, postgres, floor] = after.map((now, i) => Math.round((now - before[i]) / calls));
      return { api: api_, postgres, floor };
    };
    const totals = new Map<string, number>();
    /** Each callback's span on the machine's clock (milliseconds since the epoch), sent to answer received. */
    const spansOf = new Map<string, [number, number]>();
    /** A signed callback to `to`; its round trip kept under `key`. */
    const post = (to: string, params: Record<string, string>, key: string): Promise<string> => {
      const body = new URLSearchParams(params).toString();
      // The provider's own work (its signature) is done before the clock starts: it is not Switchboard's.
      const headers = {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': Buffer.byteLength(body),
        [SIGNATURE_HEADER]: telcoSignature(to, params, account.authToken),
      };
      const sent = performance.now();
      return new Promise((resolve, reject) => {
        const request = http.request(to, { method: 'POST', agent, headers });
        request.on('error', reject);
        request.on('response', (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const received = performance.now();
            totals.set(key, received - sent);
            spansOf.set(key, [performance.timeOrigin + sent, performance.timeOrigin + received]);
            const text = Buffer.concat(chunks).toString('utf8');
            if (response.statusCode !== 200) reject(new Error(`${response.statusCode}: ${text}`));
            else resolve(text);
          });
        });
        request.end(body);
      });
    };
    const inbound = async (to = target): Promise<{ sid: string; text: string }> => {
      const sid = `CA${randomBytes(16).toString('hex')}`;
      const text = await post(to, { AccountSid: account.sid, CallSid: sid, From: CALLER, To: number }, sid);
      return { sid, text };
    };
    /** The agent's tool asked during the call `sid`, its argument `n` (and the turn's number). */
    const toolCall = (sid: string, n: number): Promise<string> =>
      post(
        `${api.url}/api/telco/voice/tool`,
        {
          AccountSid: account.sid,
          CallSid: sid,
          From: CALLER,
          To: number,
          Direction: 'inbound',
          Tool: 'check_availability',
          Arguments: JSON.stringify({ n }),
          Sequence: String(n),
        },
        `${sid}#${n}`,
      );
    /** What Switchboard added to each of these callbacks: its round trip less the endpoint's own time. */
    const addedOf = (keys: Iterable<string>) =>
      [...keys].filter((key) => endpoint.own.has(key)).map((key) => totals.get(key)! - endpoint.own.get(key)!);
    const addedTo = (keys: Iterable<string>) => stats(addedOf(keys));
    /**
     * The spans the process `pid` kept over `run`'s calls, one at a time (split-probe.ts): before asking, after the
     * answer, and the rest of each call's added time (paired in order; none when a call was not kept).
     */
    const split = async (pid: number, name: string, run: () => Promise<void>) => {
      const file = path.join(splitDir, `${name}.json`);
      process.kill(pid, 'SIGUSR2');
      totals.clear();
      spansOf.clear();
      await run();
      rmSync(file, { force: true });
      process.kill(pid, 'SIGUSR2');
      const {
        samples: kept,
        pauses,
        writes,
      } = await eventually(
        async () => (existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SplitRecord) : undefined),
        5000,
        `${name}'s spans`,
      );
      const keys = [...totals.keys()].filter((key) => endpoint.own.has(key));
      const added = addedOf(keys);
      // The collections' time within each call's span, on the machine's clock.
      const collected = keys.map((key) => {
        const [from, to] = spansOf.get(key)!;
        return pauses.reduce((sum, p) => sum + Math.max(0, Math.min(to, p.at + p.ms) - Math.max(from, p.at)), 0);
      });
      // Likewise the service's writes of its records (none for the floor).
      const written = keys.map((key) => {
        const [from, to] = spansOf.get(key)!;
        return writes.some((w) => Math.min(to, w.at + w.ms) > Math.max(from, w.at));
      });
      const slow = added.flatMap((ms, i) => (ms >= SLOW_MS ? [collected[i]] : []));
      const slowWritten = added.filter((ms, i) => ms >= SLOW_MS && written[i]).length;
      const paired = kept.length === added.length;
      const withSend = paired ? kept.flatMap((k, i) => (k.sendMs === undefined ? [] : [[k, i] as const])) : [];
      const of = (kind: GcPause['kind']) => pauses.filter((p) => p.kind === kind).map((p) => p.ms);
      return {
        added: stats(added),
        before: stats(kept.map((k) => k.beforeMs)),
        after: stats(kept.map((k) => k.afterMs)),
        rest: paired ? stats(kept.map((k, i) => added[i] - k.beforeMs - k.afterMs)) : stats([]),
        // undici's caller only: the rest split into writing the endpoint's request, the endpoint's hop beyond its own
        // time (both sockets' writes and wake-ups), and what is outside the process's spans.
        send: stats(withSend.map(([k]) => k.sendMs!)),
        hop: stats(withSend.map(([k, i]) => k.waitMs! - endpoint.own.get(keys[i])!)),
        outside: stats(
          withSend.map(
            ([k, i]) => added[i] - k.beforeMs - k.afterMs - k.sendMs! - k.waitMs! + endpoint.own.get(keys[i])!,
          ),
        ),
        gc: {
          slow: slow.length,
          slowCollected: slow.filter((ms) => ms > 0).length,
          collectedCalls: collected.filter((ms) => ms > 0).length,
          scavenges: stats(of('scavenge')),
          markSweeps: stats(of('mark-sweep')),
        },
        records: {
          slowWritten,
          writtenCalls: written.filter(Boolean).length,
          writes: stats(writes.map((w) => w.ms)),
          busy: stats(writes.map((w) => w.busyMs)),
        },
      };
    };

    // The check: the endpoint's decision, as markup, and a request that verifies.
    const first = await inbound();
    const expected = instructionFor({
      decidedBy: 'endpoint',
      action: 'answer',
      agentId: readInstruction(first.text).agentId === undefined ? null : Number(readInstruction(first.text).agentId),
      forwardTo: null,
      fallbackReason: null,
      reason: null,
      variables: { first_name: 'Ada' },
      latencyMs: 0,
    });
    if (first.text !== expected) throw new Error(`the instruction is not the endpoint's decision: ${first.text}`);
    new StandardWebhook(created.secret).verify(
      endpoint.bodies[0].body,
      endpoint.bodies[0].headers as Record<string, string>,
    );

    await openLoop(RATE, 1, () => inbound().then(() => undefined));
    totals.clear();
    let answered!: Awaited<ReturnType<typeof openLoop>>;
    const cpuAtRate = await cpuPerCall(RATE * SECONDS, async () => {
      answered = await openLoop(RATE, SECONDS, () => inbound().then(() => undefined));
    });
    const ownTimes = [...totals.keys()].filter((sid) => endpoint.own.has(sid)).map((sid) => endpoint.own.get(sid)!);
    const healthy = {
      total: stats([...totals.values()]),
      own: stats(ownTimes),
      added: addedTo(totals.keys()),
      failed: answered.failed,
    };
    out(
      `answering endpoint: Switchboard adds p50 ${healthy.added.p50} ms, p99 ${healthy.added.p99} ms (${healthy.added.n} calls)`,
    );
    // The same, one call after another: each call alone on both event loops.
    let spans!: Awaited<ReturnType<typeof split>>;
    const cpuOneByOne = await cpuPerCall(SEQUENTIAL, async () => {
      spans = await split(api.pid!, 'api', async () => {
        for (let i = 0; i < SEQUENTIAL; i++) await inbound();
      });
    });
    const sequential = spans.added;
    out(`one call at a time: Switchboard adds p50 ${sequential.p50} ms, p99 ${sequential.p99} ms`);

    // The floor: the same two runs through a bare Node.js proxy (bare-proxy.ts) to the same endpoint.
    const floorUrl = `http://127.0.0.1:${await proxy.port}/api/telco/voice/inbound`;
    if (!(await inbound(floorUrl)).text.includes('"action":"answer"')) throw new Error('the floor does not answer');
    await openLoop(RATE, 1, () => inbound(floorUrl).then(() => undefined));
    totals.clear();
    const floorCpuAtRate = await cpuPerCall(RATE * SECONDS, () =>
      openLoop(RATE, SECONDS, () => inbound(floorUrl).then(() => undefined)),
    );
    const floorAtRate = addedTo(totals.keys());
    let floorSpans!: Awaited<ReturnType<typeof split>>;
    const floorCpuOneByOne = await cpuPerCall(SEQUENTIAL, async () => {
      floorSpans = await split(floorPid, 'floor', async () => {
        for (let i = 0; i < SEQUENTIAL; i++) await inbound(floorUrl);
      });
    });
    const floor = { atRate: floorAtRate, sequential: floorSpans.added };

    const turnsOf = { api: [] as number[], floor: [] as number[], twin: [] as number[] };
    // One at a time again, Switchboard, the floor and Switchboard's twin taking turns of TURN calls, the order rotated
    // every round: the machine's pace drifts over a run, and this way it weighs on all alike. The twin is a second
    // API process as deployed (no probe), warmed by as many calls as the first had by now: what two identical
    // processes differ by in the same turns is how finely a turn's p99 can tell anything on this machine. The goal's
    // verdict is the first's.
    const twin = await startWorker(app, {
      NODE_ENV: 'production',
      SEED_DEMO: 'false',
      LOG_LEVEL: 'error',
      PROCESS_ROLE: 'api',
    });
    const twinTarget = `${twin.url}/api/telco/voice/inbound`;
    try {
      for (let i = 0; i < RATE * SECONDS + SEQUENTIAL; i++) await inbound(twinTarget);
      const urls = { api: target, floor: floorUrl, twin: twinTarget };
      const takers = Object.keys(urls) as Array<keyof typeof urls>;
      for (let round = 0; round < TURNS; round++) {
        for (const who of takers.map((_, i) => takers[(i + round) % takers.length])) {
          const sids: string[] = [];
          for (let i = 0; i < TURN; i++) sids.push((await inbound(urls[who])).sid);
          turnsOf[who].push(...addedOf(sids));
        }
      }
    } finally {
      const gone = new Promise((resolve) => twin.once('exit', resolve));
      twin.kill('SIGTERM');
      await gone;
    }
    const inTurns = { api: stats(turnsOf.api), floor: stats(turnsOf.floor), twin: stats(turnsOf.twin) };
    out(
      `one at a time, in turns: Switchboard adds p50 ${inTurns.api.p50} ms, p99 ${inTurns.api.p99} ms; ` +
        `its twin p50 ${inTurns.twin.p50} ms, p99 ${inTurns.twin.p99} ms; ` +
        `the floor p50 ${inTurns.floor.p50} ms, p99 ${inTurns.floor.p99} ms`,
    );
    const cpu: Record<string, { api: number; postgres: number; floor: number }> = {
      atRate: cpuAtRate,
      oneByOne: cpuOneByOne,
      floorAtRate: floorCpuAtRate,
      floorOneByOne: floorCpuOneByOne,
    };
    out(
      `CPU per call, API / PostgreSQL / floor µs: at ${RATE}/s ${cpu.atRate.api} / ${cpu.atRate.postgres} / ` +
        `${cpu.floorAtRate.floor}, one at a time ${cpu.oneByOne.api} / ${cpu.oneByOne.postgres} / ${cpu.floorOneByOne.floor}`,
    );
    out(`the floor (a bare proxy) adds p50 ${floor.atRate.p50} ms, p99 ${floor.atRate.p99} ms at ${RATE}/s`);

    // Tool calls: the agent the endpoint answers with has a tool, asked during its call; checked first (the result
    // is the endpoint's, the request verifies), then one at a time and at the same rate.
    const [{ id: agentId }] = await app.sql<{ id: number }>(
      'SELECT id FROM agents WHERE company_id = $1 ORDER BY id LIMIT 1',
      [account.companyId],
    );
    endpoint.state.answer = JSON.stringify({ action: 'answer', agent_id: String(agentId) });
    const tool = await rest('POST', `/api/agents/${toBase64Id(agentId)}/tools`, {
      name: 'check_availability',
      description: 'Free slots',
      parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      url: endpoint.url,
    });
    const onCall = (await inbound()).sid;
    await eventually(
      async () => (await app.sql('SELECT 1 FROM calls WHERE provider_call_id = $1', [onCall])).length > 0 || undefined,
      5000,
      'the call recorded',
    );
    const toolResult = JSON.parse(await toolCall(onCall, 0)) as { result: unknown; source: string };
    if (toolResult.source !== 'endpoint' || JSON.stringify({ result: toolResult.result }) !== endpoint.toolAnswer)
      throw new Error(`the tool's result is not the endpoint's: ${JSON.stringify(toolResult)}`);
    new StandardWebhook(tool.secret).verify(
      endpoint.toolBodies[0].body,
      endpoint.toolBodies[0].headers as Record<string, string>,
    );
    totals.clear();
    const toolCpuOneByOne = await cpuPerCall(SEQUENTIAL, async () => {
      for (let n = 1; n <= SEQUENTIAL; n++) await toolCall(onCall, n);
    });
    const toolsOneByOne = addedTo(totals.keys());
    totals.clear();
    let next = SEQUENTIAL + 1;
    const toolCpuAtRate = await cpuPerCall(RATE * SECONDS, () =>
      openLoop(RATE, SECONDS, () => toolCall(onCall, next++).then(() => undefined)),
    );
    const toolsAtRate = addedTo(totals.keys());
    const tools = { sequential: toolsOneByOne, atRate: toolsAtRate };
    // Each tool call's turn kept once, the check's among them.
    const [{ turns }] = await app.sql<{ turns: number }>(
      "SELECT count(*)::int AS turns FROM call_turns t JOIN calls c ON c.id = t.call_id WHERE c.provider_call_id = $1 AND t.speaker = 'tool'",
      [onCall],
    );
    if (turns !== next) throw new Error(`${turns} tool turns kept of ${next} tool calls`);
    cpu.toolsAtRate = toolCpuAtRate;
    cpu.toolsOneByOne = toolCpuOneByOne;
    out(
      `tool calls: Switchboard adds p50 ${tools.sequential.p50} ms, p99 ${tools.sequential.p99} ms one at a time; ` +
        `p50 ${tools.atRate.p50} ms, p99 ${tools.atRate.p99} ms at ${RATE}/s`,
    );

    // The endpoint hangs: each call's fallback against the deadline; the breaker opens and closes every 100 ms.
    await rest('PUT', `/api/decision-endpoints/${created.id}`, { deadline_ms: DEADLINE_MS });
    endpoint.state.hang = true;
    totals.clear();
    const hung = await openLoop(RATE, SECONDS, () => inbound().then(() => undefined));
    const reasons = await app.sql<{ sid: string; reason: string }>(
      'SELECT provider_call_id AS sid, decision_fallback_reason AS reason FROM calls WHERE provider_call_id = ANY($1)',
      [[...totals.keys()]],
    );
    const by = (reason: string) => reasons.filter((r) => r.reason === reason).map((r) => totals.get(r.sid)!);
    const timedOut = by('timeout').map((ms) => ms - DEADLINE_MS);
    const open = by('breaker_open');
    const hanging = { overDeadline: stats(timedOut), breakerOpen: stats(open), failed: hung.failed };
    out(
      `hanging endpoint (deadline ${DEADLINE_MS} ms): fallback after the deadline p99 +${hanging.overDeadline.p99} ms, ` +
        `max +${hanging.overDeadline.max} ms (${timedOut.length} calls); breaker open p99 ${hanging.breakerOpen.p99} ms (${open.length} calls)`,
    );

    // Where the time goes: the answering run again, shorter, against an API process under the V8 profiler.
    await rest('PUT', `/api/decision-endpoints/${created.id}`, { deadline_ms: 2000 });
    endpoint.state.hang = false;
    const profileDir = mkdtempSync(path.join(tmpdir(), 'sb-call-path-'));
    const profiled = await startWorker(
      app,
      { NODE_ENV: 'production', SEED_DEMO: 'false', LOG_LEVEL: 'error', PROCESS_ROLE: 'api' },
      ['--cpu-prof', '--cpu-prof-dir', profileDir],
    );
    const profiledTarget = `${profiled.url}/api/telco/voice/inbound`;
    await openLoop(RATE, 5, () => inbound(profiledTarget).then(() => undefined));
    const exited = new Promise((resolve) => profiled.once('exit', resolve));
    profiled.kill('SIGTERM');
    await exited;
    const profile = { places: topPlaces(profileDir, 12), frames: topFrames(profileDir, 12) };
    rmSync(profileDir, { recursive: true, force: true });
    out(profile.places.slice(0, 6).join('\n'));

    const { commit, machine, database } = runInfo();
    const measuredAt = new Date().toISOString();
    // A goal with no calls measured is not met: the run did not show it.
    const goals = {
      added: healthy.added.n > 0 && healthy.added.p50 < 1 && healthy.added.p99 < 5,
      sequential: inTurns.api.n > 0 && inTurns.api.p50 < 1 && inTurns.api.p99 < 5,
      toolsOneByOne: tools.sequential.n > 0 && tools.sequential.p50 < 1 && tools.sequential.p99 < 5,
      toolsAtRate: tools.atRate.n > 0 && tools.atRate.p50 < 1 && tools.atRate.p99 < 5,
      deadline: hanging.overDeadline.n > 0 && hanging.overDeadline.max <= 10,
      breaker: hanging.breakerOpen.n > 0 && hanging.breakerOpen.p99 < 5,
    };
    mkdirSync('bench/results', { recursive: true });
    writeFileSync(
      'bench/results/call-path.json',
      `${JSON.stringify(
        {
          measuredAt,
          commit,
          machine,
          database,
          rate: RATE,
          seconds: SECONDS,
          healthy,
          sequential,
          inTurns,
          spans: { api: spans, floor: floorSpans },
          hanging,
          cpu,
          goals,
          profile,
        },
        null,
        2,
      )}\n`,
    );
    const met = (ok: boolean) => (ok ? 'met' : '**not met**');
    const row = (what: string, s: ReturnType<typeof stats>, goal: string) =>
      `| ${what} | ${s.n} | ${s.p50} | ${s.p99} | ${s.max} | ${goal} |`;
    writeFileSync(
      'bench/results/call-path.md',
      [
        '# Call path: inbound calls decided by the company endpoint',
        '',
        `${measuredAt}, commit ${commit}, ${machine}, ${database}. One API process (production mode), ${RATE} signed`,
        `inbound callbacks a second for ${SECONDS} s per run over kept-alive connections; the decision endpoint on loopback`,
        'answers after 1 ms. "Added" is, per call, the callback\'s round trip less the endpoint\'s own time (its',
        "request's arrival to its answer's end); the provider's signature is made before the clock starts. Before",
        "timing, one call's instruction is checked to be the endpoint's decision and its request to verify with",
        "standardwebhooks, and one tool call's result to be the endpoint's. The floor is the least a Node.js process",
        "can do in Switchboard's place on this machine (bench/bare-proxy.ts: the form read, the endpoint asked over a",
        'kept-alive connection, its body answered; nothing checked, signed or kept), measured the same two ways.',
        'In the turns that give the verdict, a second API process as deployed takes its turns too, warmed by as many',
        'calls: what two identical processes differ by there is how finely this machine tells a p99 (docs/adr/0112).',
        "Idle between calls at the slower rate, both wake from sleep for each message: the floor's own p50 is higher",
        'there than one at a time.',
        '',
        '| run | calls | p50 ms | p99 ms | max ms | goal |',
        '|---|---|---|---|---|---|',
        row("answering: the callback's round trip", healthy.total, ''),
        row("answering: the endpoint's own time", healthy.own, ''),
        row('answering: what Switchboard adds', healthy.added, `p50 under 1 ms, p99 under 5 ms: ${met(goals.added)}`),
        row(
          `answering, one at a time, ${TURNS} turns of ${TURN} calls taking turns with the floor and a twin: what Switchboard adds`,
          inTurns.api,
          `p50 under 1 ms, p99 under 5 ms: ${met(goals.sequential)}`,
        ),
        row(`the floor, the same turns: what it adds`, inTurns.floor, ''),
        row(
          'a second API process as deployed (no probe), warmed as much, the same turns: what it adds',
          inTurns.twin,
          '',
        ),
        row(`answering, ${SEQUENTIAL} calls one at a time (the split below): what Switchboard adds`, sequential, ''),
        row(`the floor, ${SEQUENTIAL} calls one at a time: what it adds`, floor.sequential, ''),
        row(
          `tool calls, ${SEQUENTIAL} one at a time: what Switchboard adds`,
          tools.sequential,
          `p50 under 1 ms, p99 under 5 ms: ${met(goals.toolsOneByOne)}`,
        ),
        row(
          `tool calls, ${RATE} a second: what Switchboard adds`,
          tools.atRate,
          `p50 under 1 ms, p99 under 5 ms: ${met(goals.toolsAtRate)}`,
        ),
        row(
          `hanging, ${DEADLINE_MS} ms deadline: the fallback's answer less the deadline`,
          hanging.overDeadline,
          `every call within 10 ms: ${met(goals.deadline)}`,
        ),
        row("hanging, breaker open: the fallback's answer", hanging.breakerOpen, `within 5 ms: ${met(goals.breaker)}`),
        '',
        `Where the added time goes, ${SEQUENTIAL} calls one at a time, as the answering process's clock saw it`,
        "(bench/split-probe.ts, on Node's and undici's diagnostics channels): before asking, from the callback's",
        "request received to the endpoint's request started; after the answer, from the endpoint's answer received",
        "to the callback's answer handed to the kernel; the rest, each call's added time less both: the two sockets'",
        "writes and wake-ups, and the load's own side. p50 / p99 ms.",
        '',
        '| process | added | before asking | after the answer | the rest | of it: sending | the hop | outside |',
        '|---|---|---|---|---|---|---|---|',
        ...(
          [
            ['Switchboard', spans],
            ['the floor', floorSpans],
          ] as const
        ).map(
          ([who, s]) =>
            `| ${who} | ${[s.added, s.before, s.after, s.rest, s.send, s.hop, s.outside].map((x) => (x.n ? `${x.p50} / ${x.p99}` : '–')).join(' | ')} |`,
        ),
        '',
        "Of the rest (undici's caller only): sending, from the endpoint's request started to its body written to the",
        "socket; the hop, from then to its answer's headers received, less the endpoint's own time; outside, what is",
        "left: the callback's own socket, its client's side and the wake-ups between them.",
        '',
        `The same calls and the answering process's garbage collections (Node's \`gc\` performance entries), each call's`,
        `span from its request sent to its answer received on the machine's clock: the calls that added ${SLOW_MS} ms or`,
        'more, and how many of them a collection overlapped; the collections of the run, p50 / max ms. And the same for the',
        "service's writes of the call path's records (services/calls/company-batches.ts, on its diagnostics channel): the",
        "decisions of the calls answered meanwhile, written together after their answers; each write's span, p50 / max ms,",
        "and of it, the time the process's event loop was busy (Node's loop utilization: the write's own work and the",
        "calls' answered beside it), p50 / max ms.",
        '',
        `| process | calls over ${SLOW_MS} ms | of them, during a collection | calls during a collection | scavenges | mark-sweeps | ` +
          'of them, during a records write | calls during a records write | records writes | the loop busy in them |',
        '|---|---|---|---|---|---|---|---|---|---|',
        ...(
          [
            ['Switchboard', spans],
            ['the floor', floorSpans],
          ] as const
        ).map(
          ([who, { gc, records }]) =>
            `| ${who} | ${gc.slow} | ${gc.slowCollected} | ${gc.collectedCalls} | ` +
            `${[gc.scavenges, gc.markSweeps].map((x) => (x.n ? `${x.n}: ${x.p50} / ${x.max}` : '0')).join(' | ')} | ` +
            `${records.slowWritten} | ${records.writtenCalls} | ` +
            `${records.writes.n ? `${records.writes.n}: ${records.writes.p50} / ${records.writes.max}` : '0'} | ` +
            `${records.busy.n ? `${records.busy.p50} / ${records.busy.max}` : '–'} |`,
        ),
        '',
        `Failed callbacks: ${healthy.failed} answering, ${hanging.failed} hanging. With the endpoint hanging the breaker`,
        'opens after 5 timeouts and is probed every 100 ms (DECISION_BREAKER_OPEN=100ms), so most calls of that run meet an',
        'open breaker and the probes are the calls that wait for the deadline.',
        '',
        `CPU per call, in µs, over each run and the ${RECORDS_WRITTEN_MS} ms after it (the records put off are written`,
        "within it): the API process's, PostgreSQL's (every process of the server) and the floor's process's.",
        '',
        '| run | API process | PostgreSQL | the floor |',
        '|---|---|---|---|',
        `| ${RATE} calls a second | ${cpu.atRate.api} | ${cpu.atRate.postgres} | ${cpu.floorAtRate.floor} |`,
        `| ${SEQUENTIAL} calls one at a time | ${cpu.oneByOne.api} | ${cpu.oneByOne.postgres} | ${cpu.floorOneByOne.floor} |`,
        `| tool calls, ${RATE} a second | ${cpu.toolsAtRate.api} | ${cpu.toolsAtRate.postgres} | |`,
        `| tool calls, ${SEQUENTIAL} one at a time | ${cpu.toolsOneByOne.api} | ${cpu.toolsOneByOne.postgres} | |`,
        '',
        `Where the API process's CPU goes while it answers ${RATE} calls a second (V8 profile, self time):`,
        '',
        '```',
        ...profile.places,
        '',
        ...profile.frames,
        '```',
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(splitDir, { recursive: true, force: true });
    bare.kill();
    agent.destroy();
    api.kill('SIGTERM');
    await endpoint.close();
    await app.close();
  }
}
