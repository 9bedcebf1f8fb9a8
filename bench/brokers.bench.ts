import { mkdirSync, writeFileSync } from 'node:fs';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { runInfo } from './harness.js';
import { cluster, closedLoop, openLoop } from './webhooks.bench.js';
import {
  type Consumed,
  mqttSubscriber,
  natsSubscriber,
  rabbitSubscriber,
  redisSubscriber,
  type Subscriber,
} from '../test/helpers/brokers.js';
import { eventually, Receiver } from '../test/helpers/receiver.js';

// Broker destinations measured as an operator runs them: one API process and
// two workers (production mode), events caused by GraphQL mutations over
// HTTP, the machine's RabbitMQ, NATS JetStream, Redis and Mosquitto, and a
// loopback HTTP receiver for the same load beside them. Before timing, each
// destination's first message is checked to verify with standardwebhooks.

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const MUTATIONS = Number(process.env.BENCH_BROKER_MUTATIONS ?? 200);
const ENDPOINTS = 20;
const SUBJECTS = 100;
const round = (n: number) => Math.round(n * 10) / 10;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};

type Cluster = Awaited<ReturnType<typeof cluster>>;

/** The engine's view of a run: attempts of these webhooks from the first start to the last finish, all succeeded. */
async function deliveredPerSecond(c: Cluster, hooks: number[], total: number): Promise<number> {
  await eventually(
    async () => {
      const [{ n }] = await c.app.sql<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ANY($1) AND status = 'succeeded'",
        [hooks],
      );
      return n >= total || undefined;
    },
    300_000,
    `${total} deliveries`,
  );
  const [{ seconds }] = await c.app.sql<{ seconds: number }>(
    `SELECT extract(epoch FROM max(a.finished_at) - min(a.attempted_at))::float8 AS seconds
     FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = ANY($1)`,
    [hooks],
  );
  return Math.round(total / seconds);
}

/** Each destination's first message verifies with its webhook's secret. */
function verified(messages: Consumed[], secret: string): void {
  if (messages.length === 0) throw new Error('nothing arrived');
  new StandardWebhook(secret).verify(messages[0].body, messages[0].headers);
}

const ALL_SUBSCRIBERS: Record<string, () => Promise<Subscriber & { read?: () => Promise<Consumed[]> }>> = {
  RabbitMQ: () => rabbitSubscriber(),
  'NATS JetStream': () => natsSubscriber(),
  'Redis Streams': () => redisSubscriber(),
  'MQTT 5': () => mqttSubscriber(),
};
/** BENCH_BROKERS=mqtt,redis measures only those (matched in the names, case aside); all by default. */
const ONLY = (process.env.BENCH_BROKERS ?? '').toLowerCase().split(',').filter(Boolean);
const SUBSCRIBERS = Object.fromEntries(
  Object.entries(ALL_SUBSCRIBERS).filter(([name]) => !ONLY.length || ONLY.some((o) => name.toLowerCase().includes(o))),
);

/**
 * The workers held (SIGSTOP) while `cause` writes through the API, then let go: the deliveries go out as fast as
 * the engine and the destination take them, not as fast as the API writes.
 */
async function backlog(c: Cluster, cause: () => Promise<unknown>): Promise<void> {
  for (const worker of c.workers) worker.kill('SIGSTOP');
  try {
    await cause();
  } finally {
    for (const worker of c.workers) worker.kill('SIGCONT');
  }
}

/** Saturation: `ENDPOINTS` webhooks to one kind of destination, `MUTATIONS` mutations at 10 concurrent, delivered from a backlog. */
async function saturation(c: Cluster, name: string, urls: string[]) {
  const created = [];
  for (const [i, url] of urls.entries())
    created.push(
      (await c.rest(c.owner, 'POST', '/api/webhooks', { title: `${name} ${i}`, url, events: ['agent.created'] })) as {
        data: { id: number; secret: string };
      },
    );
  const hooks = created.map((h) => h.data.id);
  await backlog(c, () => closedLoop(MUTATIONS, 10, (i) => c.createAgent(c.owner, `${name} ${i}`)));
  const perSecond = await deliveredPerSecond(c, hooks, MUTATIONS * urls.length);
  for (const id of hooks) await c.rest(c.owner, 'PUT', `/api/webhooks/${id}`, { active: false });
  return { perSecond, secret: created[0].data.secret };
}

/** 200 events a second to one webhook of the destination: the mutation's answer to the destination's ack. */
async function paced(c: Cluster, name: string, url: string) {
  const hook = (await c.rest(c.owner, 'POST', '/api/webhooks', {
    title: `${name} paced`,
    url,
    events: ['agent.created'],
  })) as {
    data: { id: number };
  };
  // A second at the same rate first, unmeasured, as the webhooks part does.
  await openLoop(200, 1, (i) => c.createAgent(c.owner, `${name} warm ${i}`));
  const answered = new Map<string, number>();
  const load = await openLoop(200, SECONDS, async (i) => {
    const agent = `${name} paced ${i}`;
    await c.createAgent(c.owner, agent);
    answered.set(agent, Date.now());
  });
  await deliveredPerSecond(c, [hook.data.id], answered.size + 200);
  const rows = await c.app.sql<{ name: string; acked: number }>(
    `SELECT (d.payload::json -> 'data' ->> 'name') AS name, (extract(epoch FROM a.finished_at) * 1000)::float8 AS acked
     FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = $1 AND a.number = 1`,
    [hook.data.id],
  );
  const latency = rows.filter((r) => answered.has(r.name)).map((r) => r.acked - answered.get(r.name)!);
  await c.rest(c.owner, 'PUT', `/api/webhooks/${hook.data.id}`, { active: false });
  return { p50: round(percentile(latency, 50)), p99: round(percentile(latency, 99)), failed: load.failed };
}

/** Updates of `SUBJECTS` agents, round robin, to one webhook ordered per subject or not: deliveries per second. */
async function ordering(c: Cluster, receiver: Receiver) {
  const agents: number[] = [];
  for (let i = 0; i < SUBJECTS; i++)
    agents.push(
      ((await c.rest(c.owner, 'POST', '/api/agents', { name: `Subject ${i}` })) as { data: { id: number } }).data.id,
    );
  const rates: Record<string, number[]> = { subject: [], none: [] };
  for (const [roundNo, mode] of (['none', 'subject', 'subject', 'none'] as const).entries()) {
    const hook = (await c.rest(c.owner, 'POST', '/api/webhooks', {
      title: `Order ${roundNo}`,
      url: `${receiver.url}/order/${roundNo}`,
      events: ['agent.updated'],
      ordering: mode,
    })) as { data: { id: number } };
    const updates = SUBJECTS * 10;
    await closedLoop(updates, 10, (i) =>
      c
        .rest(c.owner, 'PUT', `/api/agents/${agents[i % SUBJECTS]}`, { name: `S${i % SUBJECTS}-${roundNo}-${i}` })
        .then(() => undefined),
    );
    rates[mode].push(await deliveredPerSecond(c, [hook.data.id], updates));
    await c.rest(c.owner, 'PUT', `/api/webhooks/${hook.data.id}`, { active: false });
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    subject: rates.subject,
    none: rates.none,
    ratio: Math.round((mean(rates.subject) / mean(rates.none)) * 100) / 100,
  };
}

export async function brokersBench(): Promise<void> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const c = await cluster();
  const receiver = await new Receiver().start();
  const rows: Array<{ name: string; perSecond: number; p50: number; p99: number }> = [];
  try {
    // The same load to loopback HTTP receivers first, as the figure each broker is held against.
    const http = await saturation(
      c,
      'HTTP',
      Array.from({ length: ENDPOINTS }, (_, i) => `${receiver.url}/http/${i}`),
    );
    const httpPaced = await paced(c, 'HTTP', `${receiver.url}/paced`);
    rows.push({ name: 'HTTP (loopback)', perSecond: http.perSecond, ...httpPaced });
    out(`HTTP: ${http.perSecond}/s; paced p99 ${httpPaced.p99} ms`);
    for (const [name, subscribe] of Object.entries(SUBSCRIBERS)) {
      const subscribers = await Promise.all(Array.from({ length: ENDPOINTS + 1 }, () => subscribe()));
      try {
        const run = await saturation(
          c,
          name,
          subscribers.slice(0, ENDPOINTS).map((s) => s.url),
        );
        await subscribers[0].read?.();
        verified(subscribers[0].received, run.secret);
        const timing = await paced(c, name, subscribers[ENDPOINTS].url);
        rows.push({ name, perSecond: run.perSecond, ...timing });
        out(`${name}: ${run.perSecond}/s; paced p50 ${timing.p50} ms, p99 ${timing.p99} ms`);
      } finally {
        await Promise.all(subscribers.map((s) => s.close()));
      }
    }
    const order = await ordering(c, receiver);
    out(
      `ordering per subject (${SUBJECTS} subjects): ${order.subject.join(', ')}/s against ${order.none.join(', ')}/s unordered (${order.ratio}x)`,
    );

    const { commit, machine, database } = runInfo();
    const measuredAt = new Date().toISOString();
    mkdirSync('bench/results', { recursive: true });
    writeFileSync(
      'bench/results/brokers.json',
      `${JSON.stringify({ measuredAt, commit, machine, database, rows, order }, null, 2)}\n`,
    );
    writeFileSync(
      'bench/results/brokers.md',
      [
        `# Broker destinations (${measuredAt.slice(0, 10)}, commit ${commit})`,
        '',
        `${machine}; ${database}; one API and two worker processes (production mode), the machine's brokers and ` +
          `PostgreSQL on this one machine; events caused by GraphQL mutations over HTTP. Deliveries per second: ` +
          `${MUTATIONS} mutations at 10 concurrent, each delivered to ${ENDPOINTS} webhooks of the destination (each ` +
          'its own exchange, subject, stream or topic; loopback HTTP receivers for the HTTP row), written with the ' +
          "workers held (SIGSTOP) and then delivered from that backlog: from the first attempt's start to the last " +
          "one's acknowledgement as the engine recorded them. Latency: after a second unmeasured, 200 events a " +
          `second for ${SECONDS} s to one webhook, from the mutation's answer to the acknowledgement of its first ` +
          "attempt (the broker's confirm, ack, entry id or PUBACK; the receiver's 200).",
        '',
        '| destination | deliveries per second | 200/s: answer to ack, p50 / p99 ms |',
        '|---|---|---|',
        ...rows.map((r) => `| ${r.name} | ${r.perSecond} | ${r.p50} / ${r.p99} |`),
        '',
        `Ordering per subject: ${SUBJECTS} agents updated round robin (${SUBJECTS * 10} updates at 10 concurrent, ` +
          'delivered from a backlog as above) to one ' +
          `loopback webhook, ordered per subject against unordered, two rounds each, interleaved: ` +
          `${order.subject.join(', ')}/s against ${order.none.join(', ')}/s, **${order.ratio}x** (goal: at least 0.5x).`,
        '',
        'Goals: at least 2,000 deliveries per second to each broker and at least the HTTP figure; p99 under 20 ms.',
        '',
      ].join('\n'),
    );
  } finally {
    await receiver.close();
    await c.close();
  }
}
