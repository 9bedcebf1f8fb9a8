import { mkdirSync, writeFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { queueDeliveries } from '../test/helpers/deliveries.js';
import { startTestApp } from '../test/helpers/app.js';
import { eventually, Receiver } from '../test/helpers/receiver.js';
import { kill, startWorker } from '../test/helpers/worker.js';
import { runInfo } from './harness.js';

// `npm run bench -- stats`: what endpoint health costs (docs/adr/0081). (1) The engine's deliveries per second with
// the record kept (WEBHOOK_STATS=true) and not: the same queued deliveries over twenty fast endpoints, two worker
// processes (production mode) per round, rounds in the order on, off, off, on, off, on, on, off; each round checked to deliver every
// delivery once, and the record of the rounds with it on to count exactly those. (2) The answer for a webhook with
// ten million attempts in its history: the attempts log holds them, and its record holds them as the engine would
// have kept them (every quarter hour of 90 days and every minute of the last day); the three windows a page asks for,
// one request at a time.

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 5000);
const ENDPOINTS = 20;
const HISTORY = Number(process.env.BENCH_STATS_HISTORY ?? 10_000_000);
const ANSWER_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** The measured rounds, record kept (true) or not: on, off, off, on, twice over. */
const ORDER = [true, false, false, true, false, true, true, false];

async function onAndOff() {
  const app = await startTestApp({ PROCESS_ROLE: 'api', LOG_LEVEL: 'silent' });
  const receiver = await new Receiver().start();
  try {
    const owner = await app.login('owner@acme.test');
    const hooks: number[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const res = await app.request('POST', '/api/webhooks', {
        token: owner,
        body: { title: `Stats ${i}`, url: `${receiver.url}/${i}`, events: ['agent.created'] },
      });
      hooks.push(res.body.data.id);
    }
    const rounds: Array<{ stats: boolean; perSecond: number }> = [];
    let keptWhileOn = 0;
    // A first round unmeasured (workers and database warm), then ORDER: on and off alternated so that a drift of the
    // machine's speed over the run weighs on both alike.
    for (const stats of [true, ...ORDER]) {
      const before = receiver.received.length;
      await queueDeliveries(app, hooks, DELIVERIES, `Round ${rounds.length}`);
      const env = { NODE_ENV: 'production', LOG_LEVEL: 'error', WEBHOOK_STATS: String(stats) };
      const workers: ChildProcess[] = await Promise.all([startWorker(app, env), startWorker(app, env)]);
      const got = (await receiver.waitFor(before + DELIVERIES, 300_000)).slice(before);
      await eventually(
        async () =>
          (
            await app.sql<{ n: number }>("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'")
          )[0].n === 0
            ? true
            : undefined,
        60_000,
        'the round settled',
      );
      for (const worker of workers) await kill(worker);
      const ids = new Set(got.map((r) => String(r.headers['webhook-id'])));
      if (ids.size !== DELIVERIES)
        throw new Error(`round ${rounds.length}: ${ids.size} of ${DELIVERIES} delivered once`);
      const times = got.map((r) => r.at);
      rounds.push({ stats, perSecond: Math.round(DELIVERIES / ((Math.max(...times) - Math.min(...times)) / 1000)) });
      if (stats) keptWhileOn += DELIVERIES;
    }
    rounds.shift();
    const [{ kept }] = await app.sql<{ kept: number }>(
      'SELECT coalesce(sum(success), 0)::int AS kept FROM webhook_stats WHERE span = 60',
    );
    if (kept !== keptWhileOn)
      throw new Error(`the record counts ${kept} successes, the rounds with it on made ${keptWhileOn}`);
    const on = rounds.filter((r) => r.stats).map((r) => r.perSecond);
    const off = rounds.filter((r) => !r.stats).map((r) => r.perSecond);
    return { rounds, on, off, ratio: ratio(mean(on), mean(off)), kept };
  } finally {
    await receiver.close();
    await app.close();
  }
}

async function longHistory() {
  const app = await startTestApp({ LOG_LEVEL: 'silent' });
  try {
    const owner = await app.login('owner@acme.test');
    const res = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: 'Long history', url: 'https://example.com/hook', events: ['agent.created'] },
    });
    const id: number = res.body.data.id;
    const [{ company }] = await app.sql<{ company: number }>(
      'SELECT company_id AS company FROM webhooks WHERE id = $1',
      [id],
    );
    // The attempts log: ten million attempts of two million deliveries over 90 days.
    await app.sql(
      `INSERT INTO webhook_attempts (delivery_id, number, trigger, attempted_at, finished_at, status_code, duration_ms)
       SELECT 'msg_bench' || (g / 5)::text, g % 5 + 1, 'scheduled', t, t, 200, 40
       FROM generate_series(0, $1 - 1) g, LATERAL (SELECT now() - (g::float / $1) * interval '90 days' AS t) at`,
      [HISTORY],
    );
    // Its record, as the engine keeps it: every quarter hour of 90 days, every minute of the last 25 hours.
    for (const [span, count, step] of [
      [900, 90 * 96, '15 minutes'],
      [60, 25 * 60, '1 minute'],
    ] as const)
      await app.sql(
        // Every answer 40 ms: the slot of 25 to 50 ms.
        `INSERT INTO webhook_stats (webhook_id, span, bucket, company_id, success, server_error, failed, lt_50)
         SELECT $1, $2, date_bin(interval '${step}', now(), timestamptz '2000-01-01') - g * interval '${step}', $3,
           $4 / $5, 3, 1, $4 / $5 + 3
         FROM generate_series(0, $5 - 1) g`,
        [id, span, company, HISTORY, count],
      );
    await app.sql('VACUUM ANALYZE webhook_attempts');
    await app.sql('VACUUM ANALYZE webhook_stats');
    const auth = { authorization: `Bearer ${owner}` };
    const url = (query: string) => `${app.url}/api/webhooks/${id}/stats?${query}`;
    const day = await (
      await fetch(url('bucket=day&from=' + new Date(Date.now() - 89 * 86_400_000).toISOString()), {
        headers: auth,
      })
    ).json();
    if (!(day.data?.totals?.attempts >= HISTORY * 0.98))
      throw new Error(`the record does not hold the history: ${JSON.stringify(day).slice(0, 300)}`);
    const windows = {
      'minutes of the last day': url('bucket=minute&from=' + new Date(Date.now() - 86_400_000 + 60_000).toISOString()),
      'hours of 30 days': url('bucket=hour&from=' + new Date(Date.now() - 30 * 86_400_000 + 3_600_000).toISOString()),
      'days of 90 days': url('bucket=day&from=' + new Date(Date.now() - 89 * 86_400_000).toISOString()),
    };
    // As a page asks: one request at a time, each window in turn, for ANSWER_SECONDS each after a second unmeasured.
    const results: Record<string, { answers: number; p50: number; p99: number; max: number; bytes: number }> = {};
    for (const [name, u] of Object.entries(windows)) {
      const times: number[] = [];
      let bytes = 0;
      for (const until = Date.now() + 1000; Date.now() < until; ) await (await fetch(u, { headers: auth })).text();
      for (const until = Date.now() + ANSWER_SECONDS * 1000; Date.now() < until; ) {
        const started = performance.now();
        const answer = await fetch(u, { headers: auth });
        bytes = (await answer.text()).length;
        if (answer.status !== 200) throw new Error(`${name}: ${answer.status}`);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      const at = (p: number) =>
        Math.round(times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)] * 10) / 10;
      results[name] = { answers: times.length, p50: at(50), p99: at(99), max: at(100), bytes };
    }
    return { history: HISTORY, attemptsInRecord: day.data.totals.attempts, results };
  } finally {
    await app.close();
  }
}

export async function webhookStatsBench(): Promise<void> {
  const cost = await onAndOff();
  process.stdout.write(
    `stats on ${cost.on.join('/')} deliveries/s, off ${cost.off.join('/')} (${cost.ratio}x); kept ${cost.kept}\n`,
  );
  const long = await longHistory();
  const { commit, machine, database } = runInfo();
  const measuredAt = new Date().toISOString();
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/stats.json',
    `${JSON.stringify({ measuredAt, commit, machine, database, cost, long }, null, 2)}\n`,
  );
  const rows = Object.entries(long.results).map(
    ([name, r]) =>
      `| ${name} | ${r.answers} | ${r.p50} | ${r.p99} | ${r.max} | ${r.bytes.toLocaleString('en-US')} | ` +
      `p99 under 50 ms: ${r.p99 < 50 ? 'met' : '**not met**'} |`,
  );
  writeFileSync(
    'bench/results/stats.md',
    [
      `# Endpoint health: its cost to the engine, and its answer over a long history (${measuredAt.slice(0, 10)}, commit ${commit})`,
      '',
      `${machine}; ${database}. (1) ${DELIVERIES} queued deliveries over ${ENDPOINTS} fast endpoints per round, two ` +
        'worker processes (production mode) per round with WEBHOOK_STATS on or off, rounds in the order ' +
        `${ORDER.map((on) => (on ? 'on' : 'off')).join(', ')} after one unmeasured, from the first receipt to the last; ` +
        'each round checked to deliver every delivery once, and the record to ' +
        "count exactly the rounds' with it on. (2) A webhook with " +
        `${long.history.toLocaleString('en-US')} attempts in its log and its record (every quarter hour of 90 days, ` +
        `every minute of the last day), read over REST one request at a time as a page asks, ${ANSWER_SECONDS} s per ` +
        'window after a second unmeasured.',
      '',
      '| measure | result | goal |',
      '|---|---|---|',
      `| deliveries per second, record kept / not kept | ${cost.on.join(', ')} / ${cost.off.join(', ')} = ` +
        `${cost.ratio}x | at least 0.95x: ${cost.ratio >= 0.95 ? 'met' : '**not met**'} |`,
      '',
      '| window | answers | p50 ms | p99 ms | max ms | bytes | goal |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}
