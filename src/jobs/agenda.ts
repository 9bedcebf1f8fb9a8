import { PostgresBackend } from '@agendajs/postgres-backend';
import { Agenda, type AgendaBackend, type Job } from 'agenda';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { LOCKS } from '../db/locks.js';
import { purgeIdempotencyKeys } from '../db/idempotency.js';
import { DeliveryPump } from '../webhooks/engine/pump.js';
import { DELIVERY_JOB, type DeliveryJobData, JOB_SCAN_MS } from '../webhooks/engine/scheduler.js';
import pg from 'pg';
import type { Config } from '../config/config.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { Services } from '../composition.js';
import { errorFields } from '../observability/logger.js';
import { LIVE_RETENTION } from '../services/live-events.js';

// Agenda holds timers; state lives in the tables. MONGODB_URL selects the
// MongoDB job store; otherwise jobs live in the application's PostgreSQL.

export interface JobRunner {
  agenda: Agenda;
  /** Whether this process runs jobs (role all or worker) or only schedules them (api). */
  processing: boolean;
  ping(): Promise<void>;
  stop(): Promise<void>;
}

export interface JobDeps {
  config: Config;
  databaseUrl: string;
  services: Services;
  log: Logger;
  metrics: Metrics;
}

/** A job's lock outlives a 10 s request a little; a crashed worker's job is picked up within seconds. */
export const LOCK_LIFETIME_MS = 15_000;

export async function startJobs(deps: JobDeps): Promise<JobRunner> {
  const { config, log } = deps;
  let pool: pg.Pool | undefined;
  let backend: AgendaBackend;
  if (config.mongodbUrl) {
    // Loaded only where it is used: most deployments never touch MongoDB.
    const { MongoBackend } = await import('@agendajs/mongo-backend');
    backend = new MongoBackend({ address: config.mongodbUrl, collection: 'agenda_jobs' });
  } else {
    pool = new pg.Pool({
      connectionString: deps.databaseUrl,
      max: Math.min(4, config.databasePoolSize),
      idleTimeoutMillis: config.databaseIdleMs,
    });
    // Without a listener, a database restart would crash the process.
    pool.on('error', (error) => log.warn('job store connection error', errorFields(error)));
    // Without LISTEN/NOTIFY (docs/adr/0105-jobs-without-notifications.md): PostgreSQL wakes every listening session
    // of a database at each NOTIFY, and the jobs' own (four for each run of a job) would wake them all for news only
    // Agenda reads. Each worker finds its jobs by its scan, every second; a retry due sooner is woken by its timer.
    backend = new PostgresBackend({ pool, disableNotifications: true });
  }
  // The job store creates its tables when it connects: under the start-up lock, so processes starting
  // together on one database do not race to create them.
  const lock = pool ? await pool.connect() : undefined;
  await lock?.query('SELECT pg_advisory_lock($1)', [LOCKS.startup]);
  // Worker names are unique per process, so two workers on one host never share a lock owner.
  const agenda = new Agenda({
    backend,
    processEvery: JOB_SCAN_MS,
    defaultLockLifetime: LOCK_LIFETIME_MS,
    name: `switchboard-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
  });
  try {
    await agenda.ready;
  } finally {
    await lock?.query('SELECT pg_advisory_unlock($1)', [LOCKS.startup]).catch(() => undefined);
    lock?.release();
  }
  agenda.on('error', (error: unknown) => log.error('job store error', errorFields(error)));
  defineJobs(agenda, deps);
  const processing = config.role !== 'api';
  if (processing) {
    await agenda.start();
    await ensurePeriodic(agenda, [
      ['1 hour', 'purge-expired-auth'],
      ['15 minutes', 'spam-reputation-check'],
      ['1 minute', 'reconcile-purchases'],
      [`${RECONCILE_SECONDS} seconds`, 'webhook-reconcile'],
      ['1 hour', 'webhook-retention'],
    ]);
  } else {
    await agenda.ready;
  }
  deps.services.scheduler.attach(agenda);
  let pump: DeliveryPump | undefined;
  if (processing) {
    pump = new DeliveryPump(deps.services.deliverer, log, config.webhookWorkerSockets, config.webhookStreamWindowMs);
    await pump.start(deps.databaseUrl);
    deps.services.scheduler.attachPump(pump);
    // At start: the delivery log's partitions made ahead (the hourly retention keeps them so).
    await deps.services.deliverer.partitions
      .prepare(new Date(), config.webhookRetentionMs)
      .catch((error) => log.warn('delivery log partitions not made', errorFields(error)));
    // At start: attempts whose worker died (their lease ran out) are closed and retried.
    void deps.services.deliverer.reconcile().catch((error) => log.warn('webhook reconcile failed', errorFields(error)));
  }
  return {
    agenda,
    processing,
    ping: async () => {
      await backend.repository.getQueueSize();
    },
    stop: async () => {
      // Running attempts finish and are recorded before the job store closes.
      await pump?.stop();
      if (processing) await agenda.drain(deps.config.webhookTimeoutMs + 5000).catch(() => undefined);
      await agenda.stop();
      await pool?.end();
    },
  };
}

/** How often the webhook reconciler runs. */
export const RECONCILE_SECONDS = 5;

/**
 * Periodic jobs are created only when missing, so a restart never pushes the
 * next run back (agenda.every would reschedule from now).
 */
async function ensurePeriodic(agenda: Agenda, jobs: Array<[string, string]>): Promise<void> {
  for (const [interval, name] of jobs) {
    const existing = await agenda.queryJobs({ name, limit: 1 });
    if (existing.jobs.length > 0) continue;
    await agenda.every(interval, name, undefined, { skipImmediate: true });
  }
}

function defineJobs(agenda: Agenda, { services, log, metrics }: JobDeps): void {
  // The timer of the retries due in one window: it wakes this worker's pump, which claims whatever is due
  // (jobs run only where a pump runs: the roles all and worker).
  agenda.define(
    DELIVERY_JOB,
    async (job: Job<DeliveryJobData>) => {
      const due = new Date(job.attrs.data.due);
      metrics.jobLag.set({ job: DELIVERY_JOB }, Math.max(0, (Date.now() - due.getTime()) / 1000));
      services.scheduler.kick();
    },
    { lockLifetime: 60_000, concurrency: 50, removeOnComplete: true },
  );
  agenda.define(
    'webhook-reconcile',
    async () => {
      const { recovered } = await services.deliverer.reconcile();
      if (recovered > 0) log.warn('webhook attempts recovered after a worker stopped', { recovered });
    },
    { lockLifetime: 60_000 },
  );
  agenda.define('webhook-retention', async () => {
    const purged = await services.deliverer.purge();
    if (purged.partitions + purged.deliveries > 0) log.info('purged old webhook deliveries', purged);
    await services.callPathStats.purge(services.contexts.forMaintenance('call-path-retention'));
    // Live events are for subscribers now; an hour is plenty for every process to have read them.
    await services.contexts
      .forMaintenance('event-log-retention')
      .sql(`DELETE FROM event_log WHERE occurred_at < now() - interval '${LIVE_RETENTION}'`);
  });
  agenda.define('purge-expired-auth', async () => {
    const removed = await services.auth.purgeExpired(services.contexts.forMaintenance('purge-expired-auth'));
    log.info('purged expired tokens', { removed });
    const keys = await purgeIdempotencyKeys(services.contexts.forMaintenance('purge-idempotency-keys'));
    if (keys > 0) log.info('purged idempotency keys older than a day', { keys });
  });
  // Purchases a failure left between the provider and our records.
  agenda.define('reconcile-purchases', async () => {
    const settled = await services.purchases.reconcilePurchases(services.contexts);
    if (settled > 0) log.info('reconciled number purchases', { settled });
  });
  // Numbers never checked, or last checked a day ago or more.
  agenda.define('spam-reputation-check', async () => {
    const checked = await services.contexts
      .forMaintenance('spam-reputation-check')
      .unitOfWork((ctx) => services.spam.checkDue(ctx, 24 * 3_600_000));
    log.info('spam reputation check', { checked });
  });
}
