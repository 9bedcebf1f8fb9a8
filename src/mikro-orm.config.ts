import { defineConfig } from '@mikro-orm/postgresql';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './config/config.js';
import { ENTITIES } from './entities/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Tables a library owns and writes itself (Agenda's jobs and logs, the rate
 * limiter's api_budgets): no entity names them, and a generated migration
 * leaves them alone.
 */
export const LIBRARY_TABLES = [/^agenda_/, 'api_budgets'];

/**
 * MikroORM as the migrations' runner and writer: a new migration is the diff
 * of the entities (the schema of record, docs/adr/0077-entities-as-the-schema-of-record.md)
 * against the migrated database. One connection, for the migrations' transaction.
 */
export function migrationConfig(clientUrl: string, logger: (message: string) => void = () => {}) {
  return defineConfig({
    clientUrl,
    logger,
    colors: false,
    entities: ENTITIES,
    schemaGenerator: { skipTables: LIBRARY_TABLES },
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
