import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { runInfo } from './harness.js';
import { newDeliveryId, payloadText } from '../src/webhooks/payload.js';
import { startTestApp } from '../test/helpers/app.js';
import { eventually, Receiver, sleep } from '../test/helpers/receiver.js';
import { startWorker } from '../test/helpers/worker.js';

// Webhook delivery measured end to end on this machine, with a real receiver
// on loopback: (a) events committed at 200/s, event-to-first-attempt
// latency; (b) deliveries per second at saturation with two worker
// processes; (c) how late retries fire after they are due (never early).

const RATES = (process.env.BENCH_EVENT_RATES ?? '100,200').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SATURATION_DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 5000);
const RETRIES = Number(process.env.BENCH_RETRIES ?? 200);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const round = (n: number) => Math.round(n * 10) / 10;

async function firstAttemptLatency(RATE: number) {
  const app = await startTestApp({ LOG_LEVEL: 'silent' });
  const receiver = await new Receiver().start();
  try {
    const owner = await app.login('owner@acme.test');
    await app.request('POST', '/api/webhooks', { token: owner, body: { title: 'Bench', url: receiver.url, events: ['agent.created'] } });
    const [{ id: company }] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
    const { contexts } = app.running.services;
    const total = RATE * SECONDS;
    const started = Date.now();
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / RATE;
      if (due > Date.now()) await sleep(due - Date.now());
      void contexts.forSystem(company, 'bench').unitOfWork((ctx) => ctx.events.record('agent.created', { agent_id: String(i), name: 'Bench', active: true, online: false }));
    }
    await receiver.waitFor(total, 60_000);
    const latencies = receiver.received.map((r) => r.at - Date.parse(JSON.parse(r.body).timestamp));
    return { events: total, ratePerSecond: RATE, p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)), maxMs: round(Math.max(...latencies)) };
  } finally {
    await receiver.close();
    await app.close();
  }
}

async function saturation() {
  const app = await startTestApp({ PROCESS_ROLE: 'api', LOG_LEVEL: 'silent' });
  const receiver = await new Receiver().start();
  const workers: ChildProcess[] = [];
  try {
    const owner = await app.login('owner@acme.test');
    const [{ id: company }] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
    // Twenty endpoints (one receiver), so the per-endpoint limit of four is not what is measured.
    const hooks: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await app.request('POST', '/api/webhooks', { token: owner, body: { title: `Bench ${i}`, url: `${receiver.url}/${i}`, events: ['agent.created'] } });
      hooks.push(res.body.data.id);
    }
    const now = new Date();
    for (let start = 0; start < SATURATION_DELIVERIES; start += 500) {
      const rows: string[] = [];
      const values: unknown[] = [];
      for (let i = start; i < Math.min(start + 500, SATURATION_DELIVERIES); i++) {
        const webhookId = hooks[i % hooks.length];
        rows.push(`(?, ?, ?, 'agent.created', 'pending', ?, 0, 5, ?, 'scheduled', ?)`);
        values.push(newDeliveryId(), webhookId, company, payloadText({ event: 'agent.created', occurredAt: now, webhookId, data: { agent_id: String(i) }, contact: null }), now, now);
      }
      await app.sql(`INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, attempt_count, final_attempt, next_attempt_at, next_trigger, created_at) VALUES ${rows.join(', ')}`, values);
    }
    const [a, b] = await Promise.all([startWorker(app), startWorker(app)]);
    workers.push(a, b);
    const began = Date.now();
    await receiver.waitFor(SATURATION_DELIVERIES, 300_000);
    const seconds = (Date.now() - began) / 1000;
    await eventually(async () => {
      const [{ n }] = await app.sql("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'");
      return n === SATURATION_DELIVERIES ? true : undefined;
    }, 60_000);
    const ids = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
    return { deliveries: SATURATION_DELIVERIES, workers: 2, seconds: round(seconds), perSecond: Math.round(SATURATION_DELIVERIES / seconds), duplicates: receiver.received.length - ids.size };
  } finally {
    for (const worker of workers) worker.kill('SIGTERM');
    await receiver.close();
    await app.close();
  }
}

async function retryLateness() {
  const delayMs = 1000;
  const app = await startTestApp({ LOG_LEVEL: 'silent', WEBHOOK_RETRY_DELAYS: `${delayMs}ms,${delayMs}ms,${delayMs}ms,${delayMs}ms` });
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
    // One endpoint, events 25 ms apart: what is measured is the retry timer, not a queue for the endpoint's slots.
    await app.request('POST', '/api/webhooks', { token: owner, body: { title: 'Retry', url: receiver.url, events: ['agent.created'] } });
    const [{ id: company }] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
    const { contexts } = app.running.services;
    for (let i = 0; i < RETRIES; i++) {
      await contexts.forSystem(company, 'bench').unitOfWork((ctx) => ctx.events.record('agent.created', { agent_id: String(i), name: 'Retry', active: true, online: false }));
      await sleep(25);
    }
    await eventually(async () => {
      const [{ n }] = await app.sql("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'");
      return n >= RETRIES ? true : undefined;
    }, 60_000);
    const rows = await app.sql<{ late: number }>(
      `SELECT extract(epoch from (a2.attempted_at - a2.due_at)) * 1000 AS late FROM webhook_attempts a2 WHERE a2.number = 2`,
      [],
    );
    const late = rows.map((r) => Number(r.late));
    return { retries: late.length, delayMs, p50Ms: round(percentile(late, 50)), p99Ms: round(percentile(late, 99)), maxMs: round(Math.max(...late)), minMs: round(Math.min(...late)), early: late.filter((l) => l < 0).length };
  } finally {
    await receiver.close();
    await app.close();
  }
}

export async function webhooksBench(): Promise<void> {
  const firsts = [];
  for (const rate of RATES) {
    const first = await firstAttemptLatency(rate);
    firsts.push(first);
    process.stdout.write(`first attempt: ${first.events} events at ${first.ratePerSecond}/s to one endpoint, p50 ${first.p50Ms} ms, p99 ${first.p99Ms} ms, max ${first.maxMs} ms\n`);
  }
  const saturated = await saturation();
  process.stdout.write(`saturation: ${saturated.deliveries} deliveries, 2 workers, ${saturated.perSecond}/s (${saturated.seconds} s), duplicates ${saturated.duplicates}\n`);
  const retries = await retryLateness();
  process.stdout.write(`retries: ${retries.retries} retries, late p50 ${retries.p50Ms} ms, p99 ${retries.p99Ms} ms, max ${retries.maxMs} ms, early ${retries.early}\n`);
  const { commit, machine, database } = runInfo();
  const measuredAt = new Date().toISOString();
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/webhooks.json', `${JSON.stringify({ measuredAt, commit, machine, database, firstAttempt: firsts, saturation: saturated, retries }, null, 2)}\n`);
  writeFileSync('bench/results/webhooks.md', [
    `# Webhook delivery (${measuredAt.slice(0, 10)}, commit ${commit})`,
    '',
    `${machine}; ${database}; receiver, PostgreSQL and workers on this one machine.`,
    '',
    '| measure | result | target |',
    '|---|---|---|',
    ...firsts.map((first) => `| event to first attempt, ${first.events} events at ${first.ratePerSecond}/s to one endpoint | p50 ${first.p50Ms} ms, p99 ${first.p99Ms} ms, max ${first.maxMs} ms | p99 under 50 ms |`),
    `| deliveries per second, 2 worker processes, ${saturated.deliveries} deliveries over 20 endpoints | ${saturated.perSecond}/s, ${saturated.duplicates} duplicates | at least 1,000/s |`,
    `| retry fire time minus due time, ${retries.retries} retries | p50 ${retries.p50Ms} ms, p99 ${retries.p99Ms} ms, max ${retries.maxMs} ms, ${retries.early} early | within 100 ms, never early |`,
    '',
  ].join('\n'));
}
