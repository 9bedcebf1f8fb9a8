import 'reflect-metadata';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { createLogger, type Logger } from './observability/logger.js';
import { describeStartFailure, EXIT_CODES } from './config/startup-failure.js';
import { collectGarbageOn } from './platform/gc-threads.js';
import type { Running } from './platform/runtime.js';

// `npm start`: one binary; PROCESS_ROLE picks all (default), api or worker.
// The configuration is checked before the service's modules load (over a
// second of loading), so a bad variable is reported at once.

let config: Config | undefined;
let log: Logger | undefined;
let json = false;

async function main() {
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      // One line per bad variable, no stack: the operator's fix is in the text.
      process.stderr.write(`${error.problems.join('\n')}\n`);
      process.exit(EXIT_CODES.config);
    }
    throw error;
  }
  // Before the service's modules load and the heap grows (docs/adr/0108-garbage-collected-on-the-main-thread.md).
  collectGarbageOn(config.gcThreads);
  const format = config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json');
  log = createLogger(config.logLevel, undefined, format);
  json = format === 'json';
  let stopTraces = async () => {};
  // A stop asked for while starting stops what has started (the embedded PostgreSQL last) at the start's next step.
  const starting = new AbortController();
  let running: Running | undefined;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log!.info('shutting down', { signal });
    if (running) await stopped(running);
    else starting.abort(new Error(`stopped by ${signal} while starting`));
  };
  const stopped = async (service?: Running) => {
    await service?.stop();
    await stopTraces();
    log!.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // Traced: the SDK and the libraries' instrumentations start before the modules they hook load.
  if (config.tracing) {
    const [{ startTracing, stopTracing }, { instrumentLibraries }] = await Promise.all([
      import('./observability/tracing.js'),
      import('./observability/instrumentation.js'),
    ]);
    startTracing('switchboard', undefined, { libraries: config.tracedLibraries.length > 0, protocol: config.tracing });
    stopTraces = stopTracing;
    await instrumentLibraries(config.tracedLibraries);
  }
  const [{ startService }, { DEMO_LOGINS, DEMO_PASSWORD }] = await Promise.all([
    import('./platform/runtime.js'),
    import('./seed/demo.js'),
  ]);
  try {
    running = await startService(config, log, { signal: starting.signal });
  } catch (error) {
    // Stopped while starting: startService has stopped what it started.
    if (starting.signal.aborted) return stopped();
    throw error;
  }
  // Asked to stop after the start's last step.
  if (starting.signal.aborted) return stopped(running);

  // The banner is log lines too (JSON for machines, pretty for a terminal); it shows unless LOG_LEVEL=silent.
  const bannerLog = createLogger(config.logLevel === 'silent' ? 'silent' : 'info', undefined, format);
  // Fields are for machines: a person at a terminal reads the sentence alone.
  const banner = {
    info: (message: string, fields?: Record<string, unknown>) =>
      bannerLog.info(message, format === 'json' ? fields : undefined),
  };
  const { url } = running;
  banner.info(`Switchboard is running (${config.role}) at ${url}`, { role: config.role, url });
  // Webhooks to internal addresses are for a try-out on one machine: say so whenever they are allowed.
  if (config.webhookDestinations !== 'public') {
    const which =
      config.webhookDestinations === 'loopback'
        ? 'this machine (loopback addresses only, the development default)'
        : 'private and loopback addresses (WEBHOOK_ALLOW_PRIVATE=true)';
    bannerLog.warn(
      `Webhooks may be sent to ${which}; production refuses them unless WEBHOOK_ALLOW_PRIVATE=true`,
      format === 'json' ? { webhookDestinations: config.webhookDestinations } : undefined,
    );
  }
  if (config.role === 'worker') {
    banner.info(`Probes: ${url}/healthz, ${url}/readyz, ${url}/metrics (a worker serves no API)`);
    return;
  }
  banner.info(`Web interface: ${url}/ (sign in, then Setup > Webhooks)`, { web: `${url}/` });
  banner.info(`GraphQL: ${url}/graphql (the explorer opens there in a browser)`, { graphql: `${url}/graphql` });
  banner.info(`REST: ${url}/api (docs at ${url}/api/docs)`, { rest: `${url}/api`, docs: `${url}/api/docs` });
  banner.info(
    `Database: ${config.databaseUrl ? 'DATABASE_URL' : `embedded PostgreSQL in ${config.dataDir}/postgres`}${running.seeded ? ' (demo data created)' : ''}`,
  );
  // Demo logins exist only where demo data may be seeded (never in production).
  if (config.seedDemo) {
    for (const login of DEMO_LOGINS)
      banner.info(`Demo login: ${login.email} / ${DEMO_PASSWORD}: ${login.shows}`, { email: login.email });
    banner.info(
      `Try: curl -s -X POST ${url}/api/login -H 'Content-Type: application/json' -d '{"email":"owner@acme.test","password":"${DEMO_PASSWORD}"}'`,
    );
  }
  banner.info('Stop with Ctrl-C: requests in flight finish first, the embedded PostgreSQL stops last.');
}

main().catch((error) => {
  // One line naming the cause and the setting to fix, through the logger (JSON in JSON mode); the stack only at debug.
  const failure = describeStartFailure(error, {
    databaseUrl: config?.databaseUrl,
    host: config?.host ?? '0.0.0.0',
    port: config?.port ?? 3000,
  });
  const fields = {
    exitCode: failure.exitCode,
    ...(failure.variable ? { variable: failure.variable } : {}),
    ...(config?.logLevel === 'debug' && error instanceof Error ? { stack: error.stack } : {}),
  };
  if (log && json && config?.logLevel !== 'silent')
    log.error(`Switchboard failed to start: ${failure.message}`, fields);
  else process.stderr.write(`Switchboard failed to start: ${failure.message}\n`);
  process.exit(failure.exitCode);
});
