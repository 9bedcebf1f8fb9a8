import { mkdirSync, writeFileSync } from 'node:fs';
import { encodeTime } from 'ulid';
import type { TestApp } from '../test/helpers/app.js';
import { partitionSpanMs } from '../src/webhooks/engine/partitions.js';
import { postgresCpuUs, postmasterOf, runInfo } from './harness.js';

// `npm run bench -- retention`: what the delivery log's retention costs PostgreSQL, row by row against by partition
// (webhooks/engine/partitions.ts). One database holds the same log twice: the partitioned tables the product uses,
// and a copy of them unpartitioned (schema `flat`, the same columns, indexes and attempts trigger), each filled with
// ATTEMPTS attempts (two a delivery, two deliveries an event) spread over forty days, a hundred deliveries of the
// oldest day left pending. Each is then purged of its oldest days (a retention of 30 days, the cutoff on the first
// partition edge from ten days in): the flat copy by the statements the retention ran before partitions (the
// deliveries by each webhook's index of created_at, their attempts by the trigger, then the events no delivery is
// kept of), the partitioned log by WebhookDeliverer.purge. Both are first checked to keep the same rows. Measured for
// each: the time, PostgreSQL's CPU (every process of the server, from the kernel's counters) and the WAL written.

const ATTEMPTS = Number(process.env.BENCH_RETENTION_ATTEMPTS ?? 10_000_000);
const DAYS = 40;
const RETENTION_DAYS = 30;
const DAY = 86_400_000;
const PENDING = 100;

interface Purge {
  form: 'row by row' | 'by partition';
  seconds: number;
  cpuSeconds: number;
  walMiB: number;
  kept: { deliveries: number; attempts: number; events: number };
}

/** The log's rows of one day, made by the bench: ids whose time is the day's (as a ULID's first ten characters). */
async function fillDay(app: TestApp, webhooks: number[], company: number, dayStart: number, deliveries: number) {
  const prefix = encodeTime(dayStart + DAY / 2, 10);
  await app.sql(
    `INSERT INTO events (id, company_id, type, data, occurred_at, subjects)
     SELECT 'evt_' || $1 || lpad(g::text, 16, '0'), $2, 'agent.created', '{"agent_id":1}',
       to_timestamp($3 / 1000.0) + g * interval '1 ms', ARRAY['agent:' || g]
     FROM generate_series(1, $4::int) g`,
    [prefix, company, dayStart, deliveries / 2],
  );
  await app.sql(
    `INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, attempt_count, created_at,
       event_id, last_status_code)
     SELECT 'msg_' || $1 || lpad(g::text, 16, '0'), ($2::int[])[1 + g % cardinality($2::int[])], $3, 'agent.created',
       'succeeded', '{"type":"agent.created","data":{"agent_id":1}}', 2, to_timestamp($4 / 1000.0) + g * interval '1 ms',
       'evt_' || $1 || lpad((1 + g / 2)::text, 16, '0'), 200
     FROM generate_series(1, $5::int) g`,
    [prefix, webhooks, company, dayStart, deliveries],
  );
  await app.sql(
    `INSERT INTO webhook_attempts (delivery_id, number, trigger, attempted_at, finished_at, status_code, duration_ms)
     SELECT 'msg_' || $1 || lpad(g::text, 16, '0'), n, 'scheduled', to_timestamp($2 / 1000.0), to_timestamp($2 / 1000.0),
       CASE WHEN n = 1 THEN 503 ELSE 200 END, 12
     FROM generate_series(1, $3::int) g, generate_series(1, 2) n`,
    [prefix, dayStart, deliveries],
  );
}

/** The flat copy: the partitioned tables' columns, indexes and attempts trigger, unpartitioned. */
async function flatCopy(app: TestApp) {
  await app.sql('CREATE SCHEMA flat');
  for (const table of ['webhook_deliveries', 'webhook_attempts', 'events']) {
    await app.sql(`CREATE TABLE flat.${table} (LIKE public.${table} INCLUDING DEFAULTS INCLUDING INDEXES)`);
    await app.sql(`INSERT INTO flat.${table} SELECT * FROM public.${table}`);
  }
  await app.sql('ALTER TABLE flat.webhook_attempts SET (fillfactor = 80)');
  await app.sql(`CREATE FUNCTION flat.deliveries_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN DELETE FROM flat.webhook_attempts WHERE delivery_id IN (SELECT id FROM gone); RETURN NULL; END $$`);
  await app.sql(`CREATE TRIGGER deliveries_deleted AFTER DELETE ON flat.webhook_deliveries REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION flat.deliveries_deleted()`);
}

async function kept(app: TestApp, schema: string) {
  const [row] = await app.sql<{ deliveries: number; attempts: number; events: number }>(
    `SELECT (SELECT count(*)::int FROM ${schema}.webhook_deliveries) AS deliveries,
            (SELECT count(*)::int FROM ${schema}.webhook_attempts) AS attempts,
            (SELECT count(*)::int FROM ${schema}.events) AS events`,
  );
  return row;
}

async function measured(
  app: TestApp,
  form: Purge['form'],
  schema: string,
  run: () => Promise<unknown>,
): Promise<Purge> {
  await app.sql('CHECKPOINT');
  const postmaster = await postmasterOf(app);
  const [{ lsn: walBefore }] = await app.sql<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  const cpuBefore = postgresCpuUs(postmaster);
  const started = performance.now();
  await run();
  const seconds = (performance.now() - started) / 1000;
  const cpuSeconds = (postgresCpuUs(postmaster) - cpuBefore) / 1e6;
  const [{ bytes }] = await app.sql<{ bytes: string }>(
    'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::text AS bytes',
    [walBefore],
  );
  return {
    form,
    seconds: Math.round(seconds * 100) / 100,
    cpuSeconds: Math.round(cpuSeconds * 100) / 100,
    walMiB: Math.round(Number(bytes) / 2 ** 20),
    kept: await kept(app, schema),
  };
}

export async function retentionBench(app: TestApp): Promise<void> {
  const { partitions } = app.running.services.deliverer;
  const retention = RETENTION_DAYS * DAY;
  const span = partitionSpanMs(retention);
  // The log's partitions from forty days back, each span as the product makes them. The service made its first week's
  // at start (empty still); they go first, or the days before them would all fall to the default partition.
  for (const p of await partitions.list()) await app.sql(`DROP TABLE "${p.name}"`);
  const first = Math.floor((Date.now() - DAYS * DAY) / span) * span;
  for (let at = first; at <= Date.now(); at += 7 * DAY) await partitions.prepare(new Date(at), retention);
  const laid = await partitions.list();
  if (laid[0]?.from !== first) throw new Error('the partitions were not laid from forty days back');
  const [{ id: company }] = await app.sql<{ id: number }>('SELECT min(id) AS id FROM companies');
  const webhooks = (
    await app.sql<{ id: number }>(
      `INSERT INTO webhooks (created_at, updated_at, company_id, title, url, form_data, events, secret_sealed)
       SELECT now(), now(), $1, 'Retention ' || g, 'http://127.0.0.1:9/', '[]', '["agent.created"]', 'sealed'
       FROM generate_series(1, 20) g RETURNING id`,
      [company],
    )
  ).map((w) => w.id);
  const perDay = Math.round(ATTEMPTS / 2 / DAYS);
  const filled = performance.now();
  for (let day = 0; day < DAYS; day++) await fillDay(app, webhooks, company, first + day * DAY, perDay);
  // Every row in a time partition: a purge by partition that deleted rows of the default one would measure neither.
  const [{ strays }] = await app.sql<{ strays: number }>(
    `SELECT (SELECT count(*) FROM webhook_deliveries_default) + (SELECT count(*) FROM webhook_attempts_default)
       + (SELECT count(*) FROM events_default) AS strays`,
  );
  if (Number(strays) > 0) throw new Error(`${strays} rows of the log fell to the default partitions`);
  // Some of the oldest left pending (a paused webhook's): both forms keep them, and their attempts and events.
  await app.sql(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = NULL WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE id < $1 ORDER BY id LIMIT $2)`,
    [`msg_${encodeTime(first + DAY, 10)}`, PENDING],
  );
  await flatCopy(app);
  await app.sql('VACUUM ANALYZE');
  process.stdout.write(
    `retention: ${ATTEMPTS} attempts over ${DAYS} days made twice in ${Math.round((performance.now() - filled) / 1000)} s\n`,
  );

  // The cutoff on the edge of the first partition from ten days in: both forms remove exactly the rows before it.
  const cutoff = (await partitions.list()).find((p) => p.from >= first + (DAYS - RETENTION_DAYS) * DAY)!.from;
  const now = new Date(cutoff + retention);
  const rowByRow = await measured(app, 'row by row', 'flat', async () => {
    await app.sql(
      `DELETE FROM flat.webhook_deliveries WHERE webhook_id = ANY (ARRAY(SELECT id FROM webhooks))
         AND created_at < $1 AND status <> 'pending'`,
      [new Date(cutoff)],
    );
    await app.sql(
      `DELETE FROM flat.events e WHERE e.occurred_at < $1
         AND NOT EXISTS (SELECT 1 FROM flat.webhook_deliveries d WHERE d.event_id = e.id)`,
      [new Date(cutoff)],
    );
  });
  const byPartition = await measured(app, 'by partition', 'public', () => app.running.services.deliverer.purge(now));
  if (JSON.stringify(rowByRow.kept) !== JSON.stringify(byPartition.kept))
    throw new Error(`the two forms keep different rows: ${JSON.stringify([rowByRow.kept, byPartition.kept])}`);
  report([rowByRow, byPartition], perDay, Math.round((cutoff - first) / DAY));
}

function report(purges: Purge[], perDay: number, purgedDays: number) {
  const [flat, parted] = purges;
  const { commit, machine, database } = runInfo();
  const measuredAt = new Date().toISOString();
  const ratio = (a: number, b: number) => (b > 0 ? `${Math.round(a / b)}x` : 'all');
  process.stdout.write(
    `retention: row by row ${flat.seconds} s (${flat.cpuSeconds} s CPU, ${flat.walMiB} MiB WAL), by partition ` +
      `${parted.seconds} s (${parted.cpuSeconds} s CPU, ${parted.walMiB} MiB WAL)\n`,
  );
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/retention.json',
    `${JSON.stringify({ measuredAt, commit, machine, database, attempts: ATTEMPTS, days: DAYS, perDay, purges }, null, 2)}\n`,
  );
  writeFileSync(
    'bench/results/retention.md',
    [
      `# The delivery log's retention, row by row and by partition (${measuredAt.slice(0, 10)}, commit ${commit})`,
      '',
      `${machine}; ${database}. The same log twice in one database, partitioned and unpartitioned: ` +
        `${ATTEMPTS.toLocaleString('en-US')} attempts (two a delivery, ${perDay.toLocaleString('en-US')} deliveries a ` +
        `day, two an event) over ${DAYS} days, ${PENDING} of the oldest deliveries pending; the ` +
        `${purgedDays} oldest days purged (a retention of ${RETENTION_DAYS} days, the cutoff on a partition's edge), ` +
        'each form first checked to keep the same rows. Row by row: the statements the retention ran before partitions. By partition: ' +
        'WebhookDeliverer.purge (partitions.ts). PostgreSQL CPU: every process of the server; WAL: bytes written.',
      '',
      '| form | seconds | PostgreSQL CPU s | WAL MiB | deliveries / attempts / events kept |',
      '|---|---|---|---|---|',
      ...purges.map(
        (p) =>
          `| ${p.form} | ${p.seconds} | ${p.cpuSeconds} | ${p.walMiB} | ${p.kept.deliveries.toLocaleString('en-US')} / ` +
          `${p.kept.attempts.toLocaleString('en-US')} / ${p.kept.events.toLocaleString('en-US')} |`,
      ),
      '',
      `By partition against row by row: ${ratio(flat.seconds, parted.seconds)} less time, ` +
        `${ratio(flat.cpuSeconds, parted.cpuSeconds)} less PostgreSQL CPU, ${ratio(flat.walMiB, parted.walMiB)} less WAL.`,
      '',
    ].join('\n'),
  );
}
