import { defineConfig } from '@mikro-orm/postgresql';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './config/config.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * MikroORM as the migrations' runner alone: migrations are the schema and
 * every statement goes through `RequestContext.sql`, so it maps no entity
 * (docs/adr/0060-one-way-into-the-database.md). One connection, for the
 * migrations' transaction.
 */
export function migrationConfig(clientUrl: string, logger: (message: string) => void = () => {}) {
  return defineConfig({
    clientUrl,
    logger,
    colors: false,
    entities: [],
    discovery: { warnWhenNoEntities: false },
    forceUtcTimezone: true,
    debug: false,
    allowGlobalContext: false,
    pool: { min: 0, max: 1 },
    migrations: {
      path: path.join(here, 'migrations'),
      pathTs: path.join(here, '../../src/migrations'),
      glob: '!(*.d).js',
      emit: 'ts',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
  });
}

// Used by the MikroORM CLI (package.json "mikro-orm.configPaths"); configuration is read when the CLI asks, never at import.
export default () => migrationConfig(loadConfig().databaseUrl ?? 'postgres://postgres@127.0.0.1:5432/switchboard');
