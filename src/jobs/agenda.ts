import { MongoBackend } from '@agendajs/mongo-backend';
import { PostgresBackend } from '@agendajs/postgres-backend';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Agenda, type AgendaBackend } from 'agenda';
import pg from 'pg';
import type { Config } from '../config.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { Services } from '../services/index.js';
import { errorFields } from '../observability/logger.js';

// Agenda holds timers; state lives in entities. MONGODB_URL selects the
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
  orm: MikroORM;
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
    backend = new MongoBackend({ address: config.mongodbUrl, collection: 'agenda_jobs' });
  } else {
    pool = new pg.Pool({ connectionString: deps.databaseUrl, max: 4 });
    // Without a listener, a database restart would crash the process.
    pool.on('error', (error) => log.warn('job store connection error', errorFields(error)));
    backend = new PostgresBackend({ pool });
  }
  const agenda = new Agenda({ backend, processEvery: '1 second', defaultLockLifetime: LOCK_LIFETIME_MS, name: `switchboard-${process.pid}` });
  agenda.on('error', (error: unknown) => log.error('job store error', errorFields(error)));
  defineJobs(agenda, deps);
  const processing = config.role !== 'api';
  if (processing) {
    await agenda.start();
    await agenda.every('1 hour', 'purge-expired-auth', undefined, { skipImmediate: true });
    await agenda.every('15 minutes', 'spam-reputation-check', undefined, { skipImmediate: true });
    await agenda.every('1 minute', 'reconcile-purchases', undefined, { skipImmediate: true });
  } else {
    await agenda.ready;
  }
  return {
    agenda,
    processing,
    ping: async () => {
      await backend.repository.getQueueSize();
    },
    stop: async () => {
      await agenda.stop();
      await pool?.end();
    },
  };
}

function defineJobs(agenda: Agenda, { orm, services, log, metrics }: JobDeps): void {
  agenda.define('purge-expired-auth', async (job) => {
    const due = job.attrs.nextRunAt ?? job.attrs.lastRunAt;
    if (due) metrics.jobLag.set({ job: 'purge-expired-auth' }, Math.max(0, (Date.now() - due.getTime()) / 1000));
    const removed = await services.auth.purgeExpired(services.contexts.forMaintenance('purge-expired-auth'));
    log.info('purged expired tokens', { removed });
  });
  // Purchases a failure left between the provider and our records.
  agenda.define('reconcile-purchases', async () => {
    const settled = await services.telco.reconcilePurchases(services.contexts);
    if (settled > 0) log.info('reconciled number purchases', { settled });
  });
  // Numbers never checked, or last checked a day ago or more.
  agenda.define('spam-reputation-check', async () => {
    const checked = await services.contexts.forMaintenance('spam-reputation-check').unitOfWork((ctx) => services.spam.checkDue(ctx, 24 * 3_600_000));
    log.info('spam reputation check', { checked });
  });
}
