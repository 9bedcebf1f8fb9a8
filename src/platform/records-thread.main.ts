import diagnostics from 'node:diagnostics_channel';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { Logger } from '../observability/logger.js';
import type { FromThread, RecordsThreadData, ToThread } from './records-thread.js';

// The records thread (records-thread.ts; docs/adr/0111-call-records-on-a-thread-of-their-own.md): it lowers its
// priority first, then builds the services as an API process builds them, on two connections of its own, and writes
// the call path's records as they come, a company's together (services/calls/call-records.ts): nothing is answered
// here, so a batch waits only for the others handed over meanwhile. It says which are written, logs through the API's
// logger, and ends when asked, once what it holds is written.

const port = parentPort!;
const { config: cloned, databaseUrl, clockOffsetMs } = workerData as RecordsThreadData;
const config = { ...cloned, appKey: Buffer.from(cloned.appKey) };

const tell = (message: FromThread) => port.postMessage(message);
const logAt =
  (level: keyof Logger) =>
  (message: string, fields?: Record<string, unknown>): void => {
    try {
      tell({ kind: 'log', level, message, fields });
    } catch {
      tell({ kind: 'log', level, message, fields: { fields: JSON.stringify(fields) } });
    }
  };
const log: Logger = { debug: logAt('debug'), info: logAt('info'), warn: logAt('warn'), error: logAt('error') };

/**
 * The thread yields the CPU to the event loop that answers calls: it lowers its own priority to WORKER_NICE, as a
 * worker process does (docs/adr/0090-workers-yield-the-cpu.md). Linux keeps a priority per thread, and takes the
 * thread's own id for it (/proc/thread-self names it); elsewhere the thread keeps the process's.
 */
function yieldTheCpu(nice: number): void {
  if (nice === 0 || process.platform !== 'linux') return;
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), nice);
  } catch (error) {
    log.warn('the call records thread could not lower its priority', { nice, error: (error as Error).message });
  }
}
yieldTheCpu(config.workerNice);

diagnostics.subscribe('switchboard:call-path:batch-write', (message) => tell({ kind: 'batch', message }));

/** Written since the thread last said so: said once per turn of the event loop. */
const written: number[] = [];
const saidWritten = (id: number) => {
  if (written.length === 0) setImmediate(() => tell({ kind: 'written', ids: written.splice(0) }));
  written.push(id);
};

/** The services, loaded once the thread has yielded the CPU (loading them takes over a second of it). */
async function start() {
  await import('reflect-metadata');
  const [{ createServices }, { closablePool, readingPool }, { entityManagerOn, openEntities }, notifications] =
    await Promise.all([
      import('../composition.js'),
      import('../db/reads.js'),
      import('../db/entity-manager.js'),
      Promise.all([
        import('../db/notifier.js'),
        import('../observability/metrics.js'),
        import('../webhooks/engine/due-channel.js'),
        import('../webhooks/engine/claim.js'),
      ]),
    ]);
  const [{ Notifier }, { createMetrics }, { DUE_CHANNEL }, { ENGINE_SESSION }] = notifications;
  // Two connections at most: the batches' units of work, one at a time, and the statements outside them (tool calls'
  // turns, the NOTIFYs after each commit). No statement here commits on its own, and no delivery engine runs.
  const writer = readingPool(databaseUrl, 1);
  const reader = readingPool(databaseUrl, 1);
  const engine = readingPool(databaseUrl, 1, ENGINE_SESSION); // never connects
  const pools = [writer, reader, engine];
  const closers = pools.map(closablePool);
  for (const pool of pools)
    pool.on('error', (error) => log.warn('database connection error', { error: error.message }));
  const notifier = new Notifier(reader, new Set([DUE_CHANNEL]), { spacingMs: config.webhookStreamWindowMs });
  const orm = await openEntities(databaseUrl);
  const services = createServices(
    config,
    log,
    createMetrics(false),
    config.telcoBaseUrl ?? '',
    { writer, autonomous: reader, notifier, reader, engine, entities: (host) => entityManagerOn(orm, host) },
    () => new Date(Date.now() + clockOffsetMs),
  );
  const close = async (): Promise<void> => {
    await services.callRecords.settled();
    await notifier.settled();
    await Promise.all(closers.map((closePool) => closePool()));
    await orm.close(true);
  };
  return { records: services.callRecords, close };
}

const started = start();
let stopping: Promise<void> | undefined;
port.on('message', async (message: ToThread) => {
  const { records, close } = await started;
  if (message.kind === 'decision') void records.decision(message.record).then(() => saidWritten(message.id));
  else if (message.kind === 'turn') void records.turn(message.record).then(() => saidWritten(message.id));
  else if (message.kind === 'flush') void records.settled();
  else {
    stopping ??= close();
    await stopping;
    process.exit(0);
  }
});
