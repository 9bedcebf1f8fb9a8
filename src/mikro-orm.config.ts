import { defineConfig } from '@mikro-orm/postgresql';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './config/config.js';
import { entities } from './entities/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Knex's own warnings (a connection's), which it would write with console.log: given to the service's logger by knex's `log` option. */
export interface KnexLog {
  warn(message: unknown): void;
  error(message: unknown): void;
  deprecate(method: unknown, alternative: unknown): void;
  debug(message: unknown): void;
}

export function ormConfig(
  clientUrl: string,
  logger: (message: string) => void = () => {},
  poolSize = 10,
  knexLog?: KnexLog,
) {
  return defineConfig({
    clientUrl,
    logger,
    colors: false,
    entities,
    forceUtcTimezone: true,
    debug: false,
    allowGlobalContext: false,
    pool: { min: 0, max: poolSize },
    ...(knexLog && { driverOptions: { log: knexLog } }),
    migrations: {
      path: path.join(here, 'migrations'),
      pathTs: path.join(here, '../../src/migrations'),
      glob: '!(*.d).js',
      emit: 'ts',
      transactional: true,
      allOrNothing: true,
      // Diff against the migrated database itself, not a snapshot file.
      snapshot: false,
    },
    schemaGenerator: { skipTables: ['agenda_jobs', 'agenda_logs'] },
  });
}

// Used by the MikroORM CLI (package.json "mikro-orm.configPaths"); configuration is read when the CLI asks, never at import.
export default () => ormConfig(loadConfig().databaseUrl ?? 'postgres://postgres@127.0.0.1:5432/switchboard');
