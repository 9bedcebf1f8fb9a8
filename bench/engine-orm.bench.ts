import { mkdirSync, writeFileSync } from 'node:fs';
import { LockMode } from '@mikro-orm/core';
import type { ContextFactory } from '../src/context/request-context.js';
import { Webhook } from '../src/entities/webhook.entity.js';
import { WebhookAttempt } from '../src/entities/webhook-attempt.entity.js';
import { WebhookDelivery } from '../src/entities/webhook-delivery.entity.js';
import type { DeliveryClaim } from '../src/webhooks/engine/claim.js';
import type { Settler } from '../src/webhooks/engine/settle.js';
import type { SendResult } from '../src/webhooks/engine/attempt.js';
import { queueDeliveries } from '../test/helpers/deliveries.js';
import type { TestApp } from '../test/helpers/app.js';
import { runInfo } from './harness.js';

// `npm run bench -- engine-orm`: the delivery engine's claim and settle, each one statement (webhooks/engine/claim.ts,
// settle.ts), beside an entity form of the same work through MikroORM's unit of work, on the same queued deliveries
// over twenty endpoints, no request sent (every attempt answered 200 in 5 ms): what keeping the two statements
// hand-written earns (docs/architecture.md). The entity form does less than the statements: it takes the oldest due
// deliveries with SKIP LOCKED and a lease, records each attempt, loads the webhooks a request needs, and settles by
// the lease token; it keeps no counters (no concurrency per endpoint, no rate limit, no fairness between companies
// and endpoints), no ordering per subject and no record over time. It is the least an entity engine would cost.
// Each form is first checked to leave the same rows: every delivery succeeded once, with one attempt answered 200.

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 5000);
const ENDPOINTS = 20;
/** Deliveries taken per claim, as a worker with free sockets asks. */
const BATCH = 100;
const LEASE_MS = 30_000;
/** WEBHOOK_RETENTION's default. */
const RETENTION_MS = 30 * 86_400_000;
const ORDER = ['plain', 'orm', 'orm', 'plain', 'orm', 'plain', 'plain', 'orm'] as const;
const RESULT: SendResult = { statusCode: 200, error: null, durationMs: 5, responseBody: 'ok' };

type Form = (typeof ORDER)[number];

/** The engine's own claim and settler, as a worker holds them. */
function engineOf(app: TestApp): { claim: DeliveryClaim; settler: Settler } {
  return app.running.services.deliverer as unknown as { claim: DeliveryClaim; settler: Settler };
}

/** Claims and settles through the engine's statements until nothing is due. */
async function plain(app: TestApp): Promise<void> {
  const { claim, settler } = engineOf(app);
  for (;;) {
    const { claimed, again } = await claim.take(BATCH);
    if (claimed.length === 0 && !again) return;
    await Promise.all(claimed.map((delivery) => settler.success(delivery, RESULT)));
  }
}

interface Taken {
  id: string;
  number: number;
  leaseToken: string;
}

/** The entity form of a claim: the oldest due deliveries, leased, each attempt recorded, the webhooks loaded. */
function ormClaim(contexts: ContextFactory): Promise<Taken[]> {
  return contexts.forMaintenance('bench-orm-claim').unitOfWork(async (ctx) => {
    const now = new Date();
    const due = await ctx.em.find(
      WebhookDelivery,
      { status: 'pending', nextAttemptAt: { $lte: now } },
      { orderBy: { nextAttemptAt: 'asc', id: 'asc' }, limit: BATCH, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
    );
    if (due.length === 0) return [];
    const tokens: Array<{ token: string }> = await ctx.em.execute(
      "SELECT nextval('webhook_lease_seq')::text AS token FROM generate_series(1, ?)",
      [due.length],
    );
    due.forEach((delivery, i) => {
      ctx.em.create(WebhookAttempt, {
        deliveryId: delivery.id,
        number: delivery.attemptCount + 1,
        trigger: delivery.nextTrigger,
        attemptedAt: now,
        dueAt: delivery.nextAttemptAt ?? null,
      });
      delivery.attemptCount += 1;
      delivery.nextAttemptAt = null;
      delivery.lastAttemptAt = now;
      delivery.nextTrigger = 'scheduled';
      delivery.inFlightUntil = new Date(now.getTime() + LEASE_MS);
      delivery.leaseToken = tokens[i].token;
    });
    await ctx.em.find(Webhook, { id: { $in: [...new Set(due.map((d) => d.webhookId))] } });
    return due.map((d) => ({ id: d.id, number: d.attemptCount, leaseToken: String(d.leaseToken) }));
  });
}

/** The entity form of a settle: each delivery succeeded where its lease is still this one, its attempt finished. */
function ormSettle(contexts: ContextFactory, taken: Taken[]): Promise<void> {
  return contexts.forMaintenance('bench-orm-settle').unitOfWork(async (ctx) => {
    const now = new Date();
    const deliveries = await ctx.em.find(
      WebhookDelivery,
      { id: { $in: taken.map((t) => t.id) } },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    const token = new Map(taken.map((t) => [t.id, t.leaseToken]));
    // The lease token read back as the entity maps a bigint: compared as text.
    const fenced = deliveries.filter((d) => String(d.leaseToken) === token.get(d.id));
    if (fenced.length === 0) return;
    const attempts = await ctx.em.find(WebhookAttempt, {
      $or: fenced.map((d) => ({ deliveryId: d.id, number: d.attemptCount })),
    });
    for (const delivery of fenced) {
      delivery.status = 'succeeded';
      delivery.inFlightUntil = null;
      delivery.leaseToken = null;
      delivery.lastStatusCode = 200;
    }
    for (const attempt of attempts) {
      attempt.finishedAt = now;
      attempt.statusCode = RESULT.statusCode;
      attempt.durationMs = RESULT.durationMs;
      attempt.responseBody = RESULT.responseBody;
      attempt.error = null;
    }
  });
}

async function orm(app: TestApp): Promise<void> {
  const { contexts } = app.running.services;
  for (;;) {
    const taken = await ormClaim(contexts);
    if (taken.length === 0) return;
    await ormSettle(contexts, taken);
  }
}

/** What a round left: its deliveries, each delivered once with one attempt answered 200, or why not. */
async function check(app: TestApp, name: string): Promise<void> {
  const [row] = await app.sql<{ delivered: number; attempts: number; answered: number; pending: number }>(
    `SELECT count(*) FILTER (WHERE d.status = 'succeeded' AND d.attempt_count = 1 AND d.lease_token IS NULL
         AND d.in_flight_until IS NULL AND d.last_status_code = 200)::int AS delivered,
       (SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries x ON x.id = a.delivery_id
        WHERE x.payload LIKE '%' || $1 || '%')::int AS attempts,
       (SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries x ON x.id = a.delivery_id
        WHERE x.payload LIKE '%' || $1 || '%' AND a.status_code = 200 AND a.number = 1 AND a.finished_at IS NOT NULL
          AND a.response_body = 'ok')::int AS answered,
       count(*) FILTER (WHERE d.status = 'pending')::int AS pending
     FROM webhook_deliveries d WHERE d.payload LIKE '%' || $1 || '%'`,
    [name],
  );
  const want = { delivered: DELIVERIES, attempts: DELIVERIES, answered: DELIVERIES, pending: 0 };
  if (JSON.stringify(row) !== JSON.stringify(want))
    throw new Error(`${name}: ${JSON.stringify(row)}, not ${JSON.stringify(want)}`);
}

async function round(app: TestApp, hooks: number[], form: Form, n: number): Promise<number> {
  const name = `engine-orm round ${n} ${form}`;
  await queueDeliveries(app, hooks, DELIVERIES, name);
  const started = performance.now();
  await (form === 'plain' ? plain(app) : orm(app));
  const perSecond = Math.round(DELIVERIES / ((performance.now() - started) / 1000));
  await check(app, name);
  return perSecond;
}

export async function engineOrmBench(app: TestApp): Promise<void> {
  // The delivery log's partitions as a deployment keeps them (webhooks/engine/partitions.ts): the retention's days back
  // and a week ahead, so that each claim looks through as many as it would.
  const { partitions } = app.running.services.deliverer;
  for (let at = Date.now() - RETENTION_MS; at <= Date.now(); at += 7 * 86_400_000)
    await partitions.prepare(new Date(at), RETENTION_MS);
  const owner = await app.login('owner@acme.test');
  const hooks: number[] = [];
  for (let i = 0; i < ENDPOINTS; i++) {
    const res = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: `Engine A/B ${i}`, url: `https://example.com/hook/${i}`, events: ['agent.created'] },
    });
    hooks.push(res.body.data.id);
  }
  // One round of each unmeasured (statements prepared, caches warm), then ORDER, alternated.
  await round(app, hooks, 'plain', 0);
  await round(app, hooks, 'orm', 0);
  const rounds: Array<{ form: Form; perSecond: number }> = [];
  for (const [i, form] of ORDER.entries()) rounds.push({ form, perSecond: await round(app, hooks, form, i + 1) });
  const of = (form: Form) => rounds.filter((r) => r.form === form).map((r) => r.perSecond);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const ratio = Math.round((mean(of('orm')) / mean(of('plain'))) * 100) / 100;
  process.stdout.write(
    `claim and settle: statements ${of('plain').join('/')}/s, entities ${of('orm').join('/')}/s (${ratio}x)\n`,
  );
  const { commit, machine, database } = runInfo();
  const measuredAt = new Date().toISOString();
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/engine-orm.json',
    `${JSON.stringify({ measuredAt, commit, machine, database, deliveries: DELIVERIES, rounds, ratio }, null, 2)}\n`,
  );
  writeFileSync(
    'bench/results/engine-orm.md',
    [
      `# The engine's claim and settle: one statement each, and through the entities (${measuredAt.slice(0, 10)}, commit ${commit})`,
      '',
      `${machine}; ${database}. ${DELIVERIES.toLocaleString('en-US')} queued deliveries over ${ENDPOINTS} endpoints ` +
        `per round, claimed ${BATCH} at a time and settled as answered (no request sent), in one process; rounds in ` +
        `the order ${ORDER.join(', ')} after one of each unmeasured. Each round checked to leave every delivery ` +
        'succeeded once with one attempt answered 200. The entity form keeps no counters, fairness, ordering or ' +
        'record: the least an entity engine would cost.',
      '',
      '| form | deliveries claimed and settled per second |',
      '|---|---|',
      `| the engine's statements (plain) | ${of('plain').join(', ')} |`,
      `| through the entities (orm) | ${of('orm').join(', ')} |`,
      '',
      `orm/plain: **${ratio}x** (the statements are kept where the entities give at most 0.9x).`,
      '',
    ].join('\n'),
  );
}
