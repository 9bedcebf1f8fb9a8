import 'reflect-metadata';
import pg from 'pg';
import type { Server } from 'node:http';
import path from 'node:path';
import { setPriority } from 'node:os';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/config.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded.js';
import { LOCKS } from '../db/locks.js';
import { migrate } from '../db/migrate.js';
import { closablePool, readingPool } from '../db/reads.js';
import { entityManagerOn, openEntities, type StatementHost } from '../db/entity-manager.js';
import { Notifier } from '../db/notifier.js';
import { DUE_CHANNEL } from '../webhooks/engine/due-channel.js';
import { ENGINE_SESSION } from '../webhooks/engine/claim.js';
import { startJobs, type JobRunner } from '../jobs/agenda.js';
import { createLogger, errorFields, type Logger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { seedDemoIfEmpty } from '../seed/demo.js';
import { appServer, drainHttpServer } from '../http/edge.js';
import { HttpError } from '../kernel/errors.js';
import { probesApp } from '../http/probes.js';
import { sendError } from '../http/edge.js';
import { usePasswordCost } from '../auth/passwords.js';
import { createServices, type Services } from '../composition.js';
import { TelcoSimulator } from '../telco/simulator.js';
import { DialerEngine } from '../services/dialer-engine.js';
import { Leadership } from '../db/leadership.js';
import { VERSION } from '../config/version.js';
import { documentExtras } from './generated.js';
import { startTracing, stopTracing } from '../observability/tracing.js';

// Boot and shutdown, in order: database, migrations, demo data, jobs, HTTP;
// stopping reverses it (HTTP drains first, embedded PostgreSQL stops last).

export interface Running {
  url: string;
  databaseUrl: string;
  services: Services;
  server: Server;
  jobs: JobRunner;
  seeded: boolean;
  telcoBaseUrl: string;
  /** The dialer, where this process may lead it. */
  dialer?: DialerEngine;
  /** The in-process provider simulator, when TELCO_BASE_URL is unset. */
  simulator?: TelcoSimulator;
  stop(): Promise<void>;
}

/**
 * Migrations and demo seeding under a PostgreSQL advisory lock, so any number
 * of processes can start at once on one database: the first migrates and
 * seeds, the others wait and find it done.
 */
async function migrateAndSeed(databaseUrl: string, config: Config, log: Logger, now: Date): Promise<boolean> {
  const lock = new pg.Client({ connectionString: databaseUrl });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [LOCKS.startup]);
    await migrate(lock, databaseUrl, (message) => log.debug('migration', { message }));
    if (!config.seedDemo) return false;
    // One transaction: a process stopped while seeding leaves an empty database, which the next start seeds.
    await lock.query('BEGIN');
    const seeded = await seedDemoIfEmpty(
      async (text, params) => (await lock.query(text, params)).rows,
      config.appKey,
      now,
    );
    await lock.query('COMMIT');
    return seeded;
  } finally {
    await lock.end(); // ends the session, which releases the lock (and rolls back a seed cut short)
  }
}

export interface StartOptions {
  /** The time the dashboard's date ranges and the demo data are computed from (tests fix it). */
  clock?: () => Date;
  /**
   * Aborted by a stop asked for while starting (a signal): what has started is stopped at the next step, in reverse,
   * and the start rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

export async function startService(
  config: Config,
  log: Logger = createLogger(config.logLevel),
  { clock = () => new Date(), signal }: StartOptions = {},
): Promise<Running> {
  const cleanups: Array<[string, () => Promise<void>]> = [];
  const stop = async () => {
    for (const [step, cleanup] of cleanups.reverse()) {
      log.debug('stopping', { step });
      try {
        await cleanup();
      } catch (error) {
        log.warn('shutdown step failed', { step, ...errorFields(error) });
      }
    }
  };
  const step = () => signal?.throwIfAborted();
  try {
    step();
    if (config.tracing && startTracing('switchboard', undefined, { protocol: config.tracing }))
      cleanups.push(['tracing', stopTracing]);
    let embedded: EmbeddedDatabase | undefined;
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      embedded = await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'), 'switchboard', log);
      cleanups.push(['postgres', () => embedded!.stop()]);
      databaseUrl = embedded.url;
      log.info('embedded PostgreSQL started', { dataDir: path.join(config.dataDir, 'postgres') });
      step();
    }

    let telcoBaseUrl = config.telcoBaseUrl;
    let simulator: TelcoSimulator | undefined;
    if (!telcoBaseUrl) {
      simulator = new TelcoSimulator();
      simulator.outbound.timeScale = config.telcoSimTimeScale;
      telcoBaseUrl = await simulator.start();
      cleanups.push(['telco simulator', () => simulator!.stop()]);
      log.info('telco simulator started', { url: telcoBaseUrl });
    }
    // Statements that commit on their own (rate-limit counters, pending purchases) use a pool of their own.
    const autonomous = new pg.Pool({
      connectionString: databaseUrl,
      max: Math.min(4, config.databasePoolSize),
      idleTimeoutMillis: config.databaseIdleMs,
    });
    autonomous.on('error', (error) => log.warn('database connection error', errorFields(error)));
    // The NOTIFYs asked for after commits go on it, one statement at a time; the pumps' wake-ups merge and are spaced
    // (db/notifier.ts).
    const notifier = new Notifier(autonomous, new Set([DUE_CHANNEL]), { spacingMs: config.webhookStreamWindowMs });
    const closeAutonomous = closablePool(autonomous);
    cleanups.push([
      'autonomous pool',
      async () => {
        await notifier.settled();
        await closeAutonomous();
      },
    ]);
    // Units of work (transactions) and statements outside them each have a pool: a statement made while a
    // transaction is open (a viewer read anew, a subscription's check) never waits for a connection transactions hold.
    const writer = readingPool(databaseUrl, config.databasePoolSize, config.databaseIdleMs);
    writer.on('error', (error) => log.warn('database connection error', errorFields(error)));
    cleanups.push(['units of work pool', closablePool(writer)]);
    const reader = readingPool(databaseUrl, config.databasePoolSize, config.databaseIdleMs);
    reader.on('error', (error) => log.warn('database connection error', errorFields(error)));
    cleanups.push(['reading pool', closablePool(reader)]);
    // The delivery engine's claims and recorded results, on connections of their own (made when first used: only a
    // worker's pump uses them), so that neither queues behind the other work of the process (ENGINE_SESSION: generic
    // plans, no sequential scans).
    const engine = readingPool(
      databaseUrl,
      Math.min(4, config.databasePoolSize),
      config.databaseIdleMs,
      ENGINE_SESSION,
    );
    engine.on('error', (error) => log.warn('database connection error', errorFields(error)));
    cleanups.push(['delivery engine pool', closablePool(engine)]);
    // The entities' metadata and driver: each unit of work forks its EntityManager on its own connection.
    const orm = await openEntities(databaseUrl);
    cleanups.push(['entities', () => orm.close(true)]);
    const entities = (host: StatementHost) => entityManagerOn(orm, host);
    const metrics = createMetrics();
    const services = createServices(
      config,
      log,
      metrics,
      telcoBaseUrl,
      { writer, autonomous, notifier, reader, engine, entities },
      clock,
    );
    usePasswordCost(config.nodeEnv === 'test' ? 'fast' : 'standard');
    step();
    const seeded = await migrateAndSeed(databaseUrl, config, log, clock());
    step();

    // Every role can schedule jobs; only `all` and `worker` run them.
    const jobs = await startJobs({ config, databaseUrl, services, log, metrics });
    cleanups.push(['jobs', () => jobs.stop()]);
    step();

    const server = appServer();
    let apollo: { stop(): Promise<void> } | undefined;
    if (config.role === 'worker') {
      // A worker yields the CPU to the API processes of its host (WORKER_NICE; `npm run bench -- tail`).
      lowerPriority(config.workerNice, log);
      // A worker serves its probes and metrics alone: it builds no schema and loads none of the API's modules.
      const { app, listener } = probesApp({ database: reader, services, log, metrics, jobs, httpServer: server });
      app.use((_req, res) => sendError(res, new HttpError(404, 'Not found.'), res.locals.requestId, log));
      server.on('request', listener);
    } else {
      const [
        { createApp },
        { createSchema },
        { compileRoutes },
        { openApiDocument },
        { ingressTable, routeTable },
        { serveSubscriptions },
      ] = await Promise.all([
        import('./app.js'),
        import('../graphql/schema.js'),
        import('../rest/compile.js'),
        import('../rest/openapi.js'),
        import('../rest/routes/index.js'),
        import('../graphql/live-server.js'),
      ]);
      const schema = await createSchema(services);
      const routes = compileRoutes(schema, routeTable);
      // Made at its first request, not at every start (it walks every row and the schema).
      let document: object | undefined;
      const openapi = () => (document ??= openApiDocument(schema, routes, VERSION, ingressTable, documentExtras()));
      const api = await createApp({
        database: reader,
        services,
        schema,
        routes,
        ingress: ingressTable,
        openapi,
        log,
        metrics,
        jobs,
        httpServer: server,
      });
      apollo = api.apollo;
      server.on('request', api.listener);
      // API processes serve subscriptions: live events reach each of them through LISTEN/NOTIFY.
      services.auth.viewers.start(databaseUrl, log);
      cleanups.push(['viewer cache', () => services.auth.viewers.stop()]);
      // API processes take the provider's callbacks: the call path's configuration is kept in memory while listened for.
      services.configCache.start(databaseUrl, log);
      cleanups.push(['call path configuration', () => services.configCache.stop()]);
      services.live.start(
        databaseUrl,
        () => services.contexts.forMaintenance('live events').readOnly(),
        (channel, payload) => autonomous.query('SELECT pg_notify($1, $2)', [channel, payload]),
        log,
      );
      cleanups.push(['live events', () => services.live.stop()]);
      services.listen.start(databaseUrl, log);
      cleanups.push(['listen sessions', () => services.listen.stop()]);
      const unwatch = services.auth.viewers.watch((change) => services.live.viewerChanged(change, log));
      cleanups.push(['viewer watch', async () => unwatch()]);
      const subscriptions = serveSubscriptions(server, schema, services, log);
      cleanups.push(['subscriptions', () => subscriptions.stop()]);
      // The call path's record: added every few seconds, and once more after the last call is answered.
      services.callPathRecord.start(
        () => services.contexts.forMaintenance('call path record'),
        config.callPathStatsEveryMs,
      );
      cleanups.push(['call path record', () => services.callPathRecord.stop()]);
    }
    step();
    // Workers listen too, for their probes and metrics.
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    // HTTP drains first (every request already sent is answered), then Apollo stops.
    cleanups.push([
      'http',
      async () => {
        await drainHttpServer(server);
        await apollo?.stop();
        // Inbound calls answered before the drain are recorded, and tool calls' turns written, before the database goes.
        await Promise.all([services.inboundCalls.settled(), services.toolCalls.settled()]);
      },
    ]);
    const address = server.address() as AddressInfo | null;
    const host = config.host === '0.0.0.0' ? 'localhost' : config.host;
    const url = address ? `http://${host}:${address.port}` : '';
    // The dialer runs where jobs run; one process of the deployment leads it at a time.
    let dialer: DialerEngine | undefined;
    if (jobs.processing && config.dialer) {
      dialer = new DialerEngine(
        services.contexts,
        services.dialer,
        services.telco,
        new Leadership(databaseUrl, LOCKS.dialerLeader, log),
        {
          callsPerSecond: config.dialerCallsPerSecond,
          companyConcurrency: config.dialerCompanyConcurrency,
          tickMs: config.dialerTickMs,
          leaseMs: config.dialerLeaseMs,
        },
        log,
        services.reportCallStatus,
      );
      // The provider reports a call's progress to the public address (PUBLIC_URL: an API's); without one, to this one.
      dialer.callbackBase = config.publicUrl.endsWith(':0') ? url : config.publicUrl;
      // Its pre-dial questions count in their endpoints' record, as the API's decisions do (once more at the end).
      services.callPathRecord.start(
        () => services.contexts.forMaintenance('call path record'),
        config.callPathStatsEveryMs,
      );
      cleanups.push(['dialer call path record', () => services.callPathRecord.stop()]);
      dialer.start();
      cleanups.push(['dialer', () => dialer!.stop()]);
    }
    return {
      dialer,
      url,
      databaseUrl,
      services,
      server,
      jobs,
      seeded,
      telcoBaseUrl,
      simulator,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The process's scheduling priority lowered to `nice` (a process may always lower its own). */
function lowerPriority(nice: number, log: Logger): void {
  if (nice === 0) return;
  try {
    setPriority(nice);
  } catch (error) {
    log.warn('the worker could not lower its priority', { nice, ...errorFields(error) });
  }
}
