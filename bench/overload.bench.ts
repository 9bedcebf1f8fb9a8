import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runInfo } from './harness.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/observability/logger.js';
import { startService, type Running } from '../src/platform/runtime.js';
import { loginThrough } from '../test/helpers/app.js';
import { freePort, jsonLines, restartablePostgres } from '../test/helpers/processes.js';
import { eventually, sleep } from '../test/helpers/receiver.js';

// Overload without loss (`npm run bench -- overload`): OVERLOAD_EVENTS events
// (2,000 by default) to 50 endpoints make 100,000 deliveries, delivered by two
// worker processes (the service binary, production mode) while an API process
// takes the events over HTTP, and the database is stopped and started again
// in the middle. The endpoints: 25 fast, 10 slow (50 ms), 8 that fail a
// delivery's first attempt (503), 5 that hang on their first attempts until
// the timeout, and 2 that always fail (their deliveries end failed after the
// fifth attempt, as documented). Every delivery must end succeeded or, for
// those two, failed; none may be sent again after its receiver answered 2xx
// in time; the workers' peak memory is reported.

const EVENTS = Number(process.env.OVERLOAD_EVENTS ?? 2000);
const KINDS = [
  ...Array<string>(25).fill('fast'),
  ...Array<string>(10).fill('slow'),
  ...Array<string>(8).fill('failing'),
  ...Array<string>(5).fill('hanging'),
  ...Array<string>(2).fill('down'),
];
const ENDPOINTS = KINDS.length;
const TOTAL = EVENTS * ENDPOINTS;
/** Hanging endpoints hang on this many first attempts each (their first slots), then answer. */
const HANG_FIRST = 8;

const peakRssMiB = (pid: number | undefined) => {
  try {
    return Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
  } catch {
    return null;
  }
};

/** The receivers (bench/overload-receiver.ts) in a process of their own; `stop()` gives their report. */
async function receivers() {
  const child = spawn(process.execPath, [path.resolve('dist/bench/overload-receiver.js')], {
    env: { PATH: process.env.PATH ?? '', HANG_FIRST: String(HANG_FIRST) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const output = jsonLines(child);
  const port = (await output.find((line) => 'listening' in line, 'the receivers')).listening as number;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.stdin!.end();
      const line = await output.find((l) => 'report' in l, "the receivers' report", 30_000);
      return line.report as {
        received: number;
        seen: number;
        answered: number;
        again: number;
        againByKind: Record<string, number>;
        againSamples: string[];
      };
    },
    kill: () => child.kill('SIGKILL'),
  };
}

export async function overloadBench(): Promise<void> {
  const dir = path.resolve('.data', `bench-overload-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  const port = await freePort();
  const embedded = restartablePostgres(dir, port, 'overload');
  let server = embedded();
  await server.initialise();
  await server.start();
  await server.createDatabase('switchboard');
  const databaseUrl = `postgres://postgres:overload@127.0.0.1:${port}/switchboard`;
  const secrets = { JWT_SECRET: randomBytes(32).toString('hex'), APP_KEY: randomBytes(32).toString('base64') };
  // The API's rate limits are off: 2,000 writes of one token in a minute are the load here, not an abuse.
  const settings = {
    DATABASE_URL: databaseUrl,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_DELAYS: '1s,1s,1s,1s',
    WEBHOOK_TIMEOUT: '10s',
    API_LIMIT_PER_TOKEN: 'off',
    API_LIMIT_PER_COMPANY: 'off',
    ...secrets,
  };
  // The API in this process (it seeds the demo data); the workers as processes of the service binary.
  let api: Running | undefined = await startService(
    loadConfig({
      NODE_ENV: 'test',
      PROCESS_ROLE: 'api',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      LOGIN_LIMIT_PER_IP: '100000/1m',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sb-overload-')),
      ...settings,
    }),
    createLogger('silent'),
  );
  const workers: ChildProcess[] = [];
  const startWorker = () =>
    new Promise<ChildProcess>((resolve, reject) => {
      const child = spawn(process.execPath, [path.resolve('dist/src/main.js')], {
        env: {
          PATH: process.env.PATH ?? '',
          NODE_ENV: 'production',
          SEED_DEMO: 'false',
          PROCESS_ROLE: 'worker',
          PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'error',
          LOG_FORMAT: 'json',
          DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sb-overload-w-')),
          ...settings,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (/is running/.test(output)) resolve(child);
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.once('exit', (code) => reject(new Error(`a worker stopped (${code}): ${output.slice(-2000)}`)));
    });
  const receiver = await receivers();
  const receiverUrl = receiver.url;
  const sql = async (text: string) => {
    const client = server.getPgClient('switchboard', '127.0.0.1');
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };
  try {
    workers.push(await startWorker(), await startWorker());
    const url = api.url;
    const token = await loginThrough(url);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    for (const [i, kind] of KINDS.entries()) {
      const hook = await fetch(`${url}/api/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ title: `${kind} ${i}`, url: `${receiverUrl}/${kind}-${i}`, events: ['agent.created'] }),
      });
      if (hook.status !== 201) throw new Error(`webhook not created: ${await hook.text()}`);
    }
    const started = Date.now();
    // The database restarts once a third of the deliveries have arrived, whether events are still being made or not.
    let restartedAt = 0;
    const restart = (async () => {
      for (;;) {
        const [{ n }] = await sql('SELECT count(*)::int AS n FROM webhook_attempts');
        if (n >= TOTAL / 3) break;
        await sleep(200);
      }
      restartedAt = Date.now() - started;
      await server.stop();
      await sleep(1000);
      server = embedded(); // the same data folder and port
      await server.start();
    })();
    // The events, 20 requests at a time.
    let apiFailures = 0;
    for (let i = 0; i < EVENTS; i += 20) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(20, EVENTS - i) }, async (_, j) => {
          for (let tries = 0; tries < 50; tries++) {
            const res = await fetch(`${url}/graphql`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ query: `mutation { createAgent(name: "Overload ${i + j}") { id } }` }),
            }).catch(() => undefined);
            const body = res?.status === 200 ? ((await res.json()) as { errors?: unknown }) : undefined;
            if (body && !body.errors) return true;
            apiFailures++;
            await sleep(200); // the database is restarting: the caller tries again, as an integrator would
          }
          return false;
        }),
      );
      if (answers.includes(false)) throw new Error('an event could not be made in 50 tries');
    }
    await restart;
    const eventsDone = Date.now() - started;
    // Every delivery ends: succeeded, or failed for the two endpoints that never answer 2xx.
    await eventually(
      async () => {
        const [{ open }] = await sql("SELECT count(*)::int AS open FROM webhook_deliveries WHERE status = 'pending'");
        return open === 0 ? true : undefined;
      },
      900_000,
      'every delivery to end',
    );
    const finished = Date.now() - started;
    const report = await receiver.stop();
    // How the first attempts that did not succeed ended (a timeout, a refused connection, closed by a reconciler).
    const firstFailures =
      await sql(`SELECT split_part(w.title, ' ', 1) AS kind, left(coalesce(a.error, 'HTTP ' || a.status_code), 60) AS outcome, count(*)::int AS n
                                     FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN webhooks w ON w.id = d.webhook_id
                                     WHERE a.number = 1 AND (a.status_code IS NULL OR a.status_code >= 300) AND w.title ~ '^(fast|slow) '
                                       GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 10`);
    const byKind =
      await sql(`SELECT split_part(w.title, ' ', 1) AS kind, d.status, count(*)::int AS n, max(d.attempt_count)::int AS max_attempts
                              FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.title ~ ' [0-9]+$' GROUP BY 1, 2 ORDER BY 1, 2`);
    const gaps = await sql(
      `SELECT count(*)::int AS n FROM webhook_deliveries d WHERE d.attempt_count <> (SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = d.id)`,
    );
    const perKind = (kind: string, status: string) =>
      byKind.filter((r) => r.kind === kind && r.status === status).reduce((sum, r) => sum + r.n, 0);
    const expectedFailed = EVENTS * KINDS.filter((k) => k === 'down').length;
    const succeeded = byKind.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + r.n, 0);
    const failed = perKind('down', 'failed');
    const result = {
      events: EVENTS,
      endpoints: ENDPOINTS,
      deliveries: TOTAL,
      succeeded,
      failedAsDocumented: failed,
      lost: TOTAL - succeeded - failed,
      wrongState: byKind
        .filter((r) => (r.kind === 'down' ? r.status !== 'failed' : r.status !== 'succeeded'))
        .reduce((sum, r) => sum + r.n, 0),
      attemptGaps: gaps[0].n as number,
      sentAgainAfter2xx: report.again,
      sentAgainByKind: report.againByKind,
      sentAgainSamples: report.againSamples,
      requestsReceived: report.received,
      fastOrSlowFirstAttemptsNotSucceeded: firstFailures,
      apiRetriesDuringRestart: apiFailures,
      restartAtSeconds: Math.round(restartedAt / 100) / 10,
      eventsMadeInSeconds: Math.round(eventsDone / 100) / 10,
      allEndedInSeconds: Math.round(finished / 100) / 10,
      workerPeakRssMiB: workers.map((w) => peakRssMiB(w.pid)),
      byKind,
    };
    const ok =
      restartedAt > 0 &&
      result.lost === 0 &&
      result.wrongState === 0 &&
      result.attemptGaps === 0 &&
      result.sentAgainAfter2xx === 0 &&
      failed === expectedFailed;
    const { commit, machine } = runInfo();
    const measuredAt = new Date().toISOString();
    mkdirSync('bench/results', { recursive: true });
    writeFileSync(
      'bench/results/overload.json',
      `${JSON.stringify({ measuredAt, commit, machine, database: 'embedded PostgreSQL, restarted during the run', ok, ...result }, null, 2)}\n`,
    );
    writeFileSync(
      'bench/results/overload.md',
      [
        '# Overload without loss',
        '',
        `Measured ${measuredAt} on commit ${commit}; ${machine}; an embedded PostgreSQL stopped and started again during the run.`,
        '',
        `${EVENTS.toLocaleString('en')} events through the API (GraphQL, 20 at a time) to ${ENDPOINTS} ` +
          `endpoints: ${TOTAL.toLocaleString('en')} deliveries, two worker processes (production mode), ` +
          `retries 1 s apart, timeout 10 s.`,
        'Endpoints: 25 fast, 10 slow (50 ms), 8 failing each first attempt (503), 5 hanging on their first attempts until the timeout, 2 always failing (503).',
        '',
        '| figure | value |',
        '|---|---|',
        `| verdict | ${ok ? 'nothing lost, nothing in a wrong state, nothing sent again after a timely 2xx' : '**FAILED**'} |`,
        `| succeeded | ${succeeded.toLocaleString('en')} of ${(TOTAL - expectedFailed).toLocaleString('en')} |`,
        `| failed after 5 attempts (the always-failing endpoints) | ${failed.toLocaleString('en')} of ${expectedFailed.toLocaleString('en')} |`,
        `| lost / in a wrong state / attempt numbers missing | ${result.lost} / ${result.wrongState} / ${result.attemptGaps} |`,
        `| sent again after a 2xx within the timeout | ${result.sentAgainAfter2xx} |`,
        `| requests the receivers got (with retries) | ${report.received.toLocaleString('en')} |`,
        `| database restart | at ${result.restartAtSeconds} s; API calls that failed meanwhile and were tried again: ${apiFailures} |`,
        `| events made / every delivery ended | ${result.eventsMadeInSeconds} s / ${result.allEndedInSeconds} s |`,
        `| first attempts to fast and slow endpoints that did not succeed | ${
          firstFailures.map((r) => `${r.kind}: ${r.n} × ${r.outcome}`).join('; ') || 'none'
        } |`,
        `| worker peak RSS | ${result.workerPeakRssMiB.map((m) => `${m} MiB`).join(', ')} |`,
        '',
      ].join('\n'),
    );
    process.stdout.write(`overload: ${JSON.stringify({ ok, ...result, byKind: undefined })}\n`);
    if (!ok) process.exitCode = 1;
  } finally {
    for (const worker of workers) worker.kill('SIGKILL');
    receiver.kill();
    await api?.stop().catch(() => undefined);
    api = undefined;
    await server.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
