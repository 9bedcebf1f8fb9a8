import 'reflect-metadata';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './observability/logger.js';
import { startService } from './runtime.js';
import { DEMO_LOGINS, DEMO_PASSWORD } from './seed/demo.js';

// `npm start`: one binary; PROCESS_ROLE picks all (default), api or worker.

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      // One line per bad variable, no stack: the operator's fix is in the text.
      process.stderr.write(`${error.problems.join('\n')}\n`);
      process.exit(78);
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  const running = await startService(config, log);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    await running.stop();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const worker = config.role === 'worker';
  const lines = [
    '',
    `Switchboard is running (${config.role}) at ${running.url}`,
    ...(worker ? [`  Probes:   ${running.url}/healthz, /readyz, /metrics (a worker serves no API)`] : []),
  ];
  if (!worker) lines.push(
    `  GraphQL:  ${running.url}/graphql`,
    `  REST:     ${running.url}/api   (docs: ${running.url}/api/docs)`,
    `  Database: ${config.databaseUrl ? 'DATABASE_URL' : `embedded PostgreSQL in ${config.dataDir}/postgres`}${running.seeded ? ' (demo data created)' : ''}`,
    '',
    // Demo logins exist only where demo data may be seeded (never in production).
    ...(config.seedDemo
      ? [
          `Demo logins (password "${DEMO_PASSWORD}"):`,
          ...DEMO_LOGINS.map((login) => `  ${login.email.padEnd(22)} ${login.shows}`),
          '',
          `Try: curl -s -X POST ${running.url}/api/login -H 'Content-Type: application/json' -d '{"email":"owner@acme.test","password":"${DEMO_PASSWORD}"}'`,
          '',
        ]
      : []),
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(`Switchboard failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
