import 'reflect-metadata';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from './config/config.js';
import { startEmbeddedPostgres } from './db/embedded.js';
import { migrate, withMigrator } from './db/migrate.js';
import { createLogger } from './observability/logger.js';

// `npm run migration:create -- <name>`: migrates the development database,
// then writes src/migrations/Migration<timestamp>_<name>.ts holding the diff
// of the entities against it (docs/adr/0077-entities-as-the-schema-of-record.md);
// with `--blank`, an empty one, for what the entities cannot say (a trigger, a
// table option, a partial or expression index: see docs/architecture.md).

const name = process.argv[2];
const blank = process.argv.includes('--blank');
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  process.stderr.write('usage: npm run migration:create -- <snake_case_name> [--blank]\n');
  process.exit(64);
}
const config = loadConfig();
const embedded = config.databaseUrl
  ? undefined
  : await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'), 'switchboard', createLogger('warn'));
const databaseUrl = config.databaseUrl ?? embedded!.url;
const client = new pg.Client({ connectionString: databaseUrl });
await client.connect();
try {
  await migrate(client, databaseUrl);
  const result = await withMigrator(databaseUrl, (migrator) => migrator.createMigration(undefined, blank, false, name));
  process.stdout.write(
    result.fileName
      ? `wrote src/migrations/${result.fileName}\n`
      : 'the entities and the database agree: nothing to write\n',
  );
} finally {
  await client.end();
  await embedded?.stop();
}
