import { mkdirSync, writeFileSync } from 'node:fs';
import { startTestApp } from '../test/helpers/app.js';
import { kill, startWorker } from '../test/helpers/worker.js';
import { postgresCpuUs, postmasterOf, processCpuUs, runInfo } from './harness.js';

// `npm run bench -- dialer`: a campaign of 10,000 leads (BENCH_DIALER_LEADS) dialed through the telco simulator at
// concurrency 50 and 10 calls a second, as a deployment runs it: the API in this process (with the simulator, its
// calls at TIME_SCALE of real time, so a call of a minute and its ringing outlast the cap at that pace), the dialer in
// a worker process. Measured at the simulator: the most calls on the line at once and the most dials in any second
// (against the cap and the limit), dials per second over the run; the worker's CPU and PostgreSQL's per dial. First,
// on its own: ten leads whose calling hours open at the next minute, and the time from that opening to each one's
// dial (ten: a second of the pace; leads past the pace wait their turn). Each run is checked: every lead dialed
// exactly once, the counts by state adding up to the total.

const LEADS = Number(process.env.BENCH_DIALER_LEADS ?? 10_000);
const CONCURRENCY = 50;
const RATE = 10;
const TIME_SCALE = 0.07;
/** Leads whose hours open together: a second of the account's pace. */
const PROBES = 10;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** The most of `times` (ms) within any window of `width` ms. */
function busiest(times: number[], width: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= width) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

export async function dialerBench(): Promise<void> {
  const env = {
    DIALER_CALLS_PER_SECOND: String(RATE),
    DIALER_TICK: '100ms',
    DIALER_COMPANY_CONCURRENCY: String(CONCURRENCY),
  };
  const app = await startTestApp({
    PROCESS_ROLE: 'api',
    TELCO_SIM_TIME_SCALE: String(TIME_SCALE),
    LOGIN_LIMIT_PER_IP: '100000/1m',
    ...env,
  });
  const worker = await startWorker(app, { ...env, PUBLIC_URL: app.url, LOG_LEVEL: 'warn' });
  const sim = app.running.simulator!.outbound;
  try {
    const token = await app.login('owner@acme.test');
    const campaign = async (name: string, hours: { start: string; end: string }, csv: string) => {
      const created = await app.request('POST', '/api/campaigns', {
        token,
        body: {
          name,
          dialing: { concurrency: CONCURRENCY, hours_start: hours.start, hours_end: hours.end, max_attempts: 1 },
        },
      });
      const id = created.body.data.id as number;
      const res = await app.request('POST', `/api/campaigns/${id}/leads/import`, {
        token,
        headers: { 'content-type': 'text/csv' },
        raw: csv,
      });
      if (res.status !== 201) throw new Error(`import: ${res.status} ${res.text.slice(0, 300)}`);
      return id;
    };
    const completed = async (id: number, ms: number) => {
      for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
        const [c] = await app.sql('SELECT status FROM campaigns WHERE id = $1', [id]);
        if (c.status === 'completed') return;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      throw new Error(`campaign ${id} did not complete`);
    };

    // 1. Hours opening at the next whole minute at least 20 s away (UTC), for ten leads kept in UTC.
    const opening = new Date(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000);
    const hhmm = (d: Date) => d.toISOString().slice(11, 16);
    const closing = new Date(
      Math.min(
        opening.getTime() + 3_600_000,
        Date.UTC(opening.getUTCFullYear(), opening.getUTCMonth(), opening.getUTCDate() + 1) - 60_000,
      ),
    );
    const probeNumbers = Array.from({ length: PROBES }, (_, i) => `+1212555${String(7000 + i * 10 + 1)}`);
    const probe = await campaign(
      'Bench: hours opening',
      {
        start: hhmm(opening),
        end: closing.getUTCHours() === 0 && closing.getUTCMinutes() === 0 ? '24:00' : hhmm(closing),
      },
      `phone_number,time_zone\n${probeNumbers.map((n) => `${n},UTC`).join('\n')}\n`,
    );
    await app.request('POST', `/api/campaigns/${probe}/start`, { token });
    await completed(probe, 180_000);
    const waits = probeNumbers
      .map((n) => sim.calls.find((c) => c.to === n)!.placedAt - opening.getTime())
      .sort((a, b) => a - b);
    if (waits[0] < 0) throw new Error(`a lead was dialed ${-waits[0]} ms before its hours opened`);

    // 2. The campaign: most answered, some unanswered, busy, voicemail, failed (the simulator's last digits).
    const digits = [1, 2, 3, 4, 5, 1, 2, 6, 7, 8, 8, 9, 1, 2, 3, 4, 5, 1, 2, 3];
    const numbers = Array.from(
      { length: LEADS },
      (_, i) => `+1${String(2_000_000_000 + i * 797).slice(0, 9)}${digits[i % digits.length]}`,
    );
    if (new Set(numbers).size !== LEADS) throw new Error('the bench numbers are not all different');
    const id = await campaign(
      'Bench: 10,000 leads',
      { start: '00:00', end: '24:00' },
      `phone_number,plan\n${numbers.map((n, i) => `${n},tier-${i % 3}`).join('\n')}\n`,
    );
    const before = sim.calls.length;
    sim.maxLive = sim.live;
    const postmaster = await postmasterOf(app);
    const cpuBefore = [processCpuUs([worker.pid!]), postgresCpuUs(postmaster)];
    const started = Date.now();
    await app.request('POST', `/api/campaigns/${id}/start`, { token });
    await completed(id, LEADS * 1000);
    const seconds = (Date.now() - started) / 1000;
    const [workerUs, databaseUs] = [
      processCpuUs([worker.pid!]) - cpuBefore[0],
      postgresCpuUs(postmaster) - cpuBefore[1],
    ];
    const placed = sim.calls.slice(before);
    const perNumber = new Map<string, number>();
    for (const call of placed) perNumber.set(call.to, (perNumber.get(call.to) ?? 0) + 1);
    const twice = [...perNumber.values()].filter((n) => n !== 1).length;
    const progress = (await app.request('GET', `/api/campaigns/${id}/progress`, { token })).body.data;
    const final = ['answered', 'no_answer', 'busy', 'voicemail', 'failed'].reduce((sum, s) => sum + progress[s], 0);
    if (twice > 0 || perNumber.size !== LEADS || progress.total !== LEADS || final !== LEADS)
      throw new Error(`dialed ${perNumber.size} numbers (${twice} not once); progress ${JSON.stringify(progress)}`);
    const times = placed.map((c) => c.placedAt);
    const span = (Math.max(...times) - Math.min(...times)) / 1000;
    const result = {
      leads: LEADS,
      concurrency: CONCURRENCY,
      rate: RATE,
      timeScale: TIME_SCALE,
      seconds: Math.round(seconds),
      maxLive: sim.maxLive,
      maxPerSecond: busiest(times, 1000),
      dialsPerSecond: Math.round((placed.length / span) * 100) / 100,
      workerMsPerDial: Math.round(workerUs / placed.length / 10) / 100,
      databaseMsPerDial: Math.round(databaseUs / placed.length / 10) / 100,
      openingToDialMs: { p50: percentile(waits, 50), p99: percentile(waits, 99), max: waits.at(-1) },
      outcomes: {
        answered: progress.answered,
        no_answer: progress.no_answer,
        busy: progress.busy,
        voicemail: progress.voicemail,
        failed: progress.failed,
      },
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    write(result);
  } finally {
    await kill(worker);
    await app.close();
  }
}

function write(result: {
  leads: number;
  seconds: number;
  maxLive: number;
  maxPerSecond: number;
  dialsPerSecond: number;
  workerMsPerDial: number;
  databaseMsPerDial: number;
  openingToDialMs: { p50: number; p99: number; max: number | undefined };
  outcomes: Record<string, number>;
}): void {
  const { commit, machine, database } = runInfo();
  const measuredAt = new Date().toISOString();
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/dialer.json',
    `${JSON.stringify({ measuredAt, commit, machine, database, ...result }, null, 2)}\n`,
  );
  const met = (ok: boolean) => (ok ? 'met' : 'not met');
  const o = result.outcomes;
  writeFileSync(
    'bench/results/dialer.md',
    [
      `# A campaign of ${result.leads.toLocaleString('en-US')} leads dialed (${measuredAt.slice(0, 10)}, commit ${commit})`,
      '',
      `${machine}; ${database}. The API and the telco simulator in one process (calls at ${TIME_SCALE} of real time: ` +
        `a minute's call takes ${(60 * TIME_SCALE).toFixed(1)} s), the dialer in a worker process; the campaign at ` +
        `concurrency ${CONCURRENCY}, the account at ${RATE} calls a second, one attempt a lead. Checked: every lead ` +
        `dialed exactly once, the counts by state adding up (${o.answered} answered, ${o.no_answer} no answer, ` +
        `${o.busy} busy, ${o.voicemail} voicemail, ${o.failed} failed). The opening: ${PROBES} leads whose hours ` +
        'opened at a whole minute, dialed alone before the campaign.',
      '',
      '| measure | value | goal |',
      '|---|---|---|',
      `| most calls on the line at once | ${result.maxLive} | at most ${CONCURRENCY}: ${met(result.maxLive <= CONCURRENCY)} |`,
      `| most dials in any second | ${result.maxPerSecond} | at most ${RATE}: ${met(result.maxPerSecond <= RATE)} |`,
      `| dials per second over the run | ${result.dialsPerSecond} | the limit, ${RATE} |`,
      `| the campaign, start to completed | ${result.seconds} s | |`,
      `| the dialer's CPU per dial (worker process) | ${result.workerMsPerDial} ms | |`,
      `| PostgreSQL's CPU per dial (with the calls' callbacks and events) | ${result.databaseMsPerDial} ms | |`,
      `| hours opening to dial, p50 / p99 / max | ${result.openingToDialMs.p50} / ${result.openingToDialMs.p99} / ` +
        `${result.openingToDialMs.max} ms | p99 within 2000 ms: ${met(result.openingToDialMs.p99 <= 2000)} |`,
      '',
    ].join('\n'),
  );
}
