import 'reflect-metadata';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from './config/config.js';
import { startEmbeddedPostgres } from './db/embedded.js';
import { migrate, withMigrator } from './db/migrate.js';
import { createLogger } from './observability/logger.js';

// `npm run migration:create -- <name>`: migrates the development database,
// then writes an empty src/migrations/Migration<timestamp>_<name>.ts to fill
// in. Migrations are the schema (docs/adr/0060-one-way-into-the-database.md).

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  process.stderr.write('usage: npm run migration:create -- <snake_case_name>\n');
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
  const result = await withMigrator(databaseUrl, (migrator) => migrator.createMigration(undefined, true, false, name));
  process.stdout.write(`wrote src/migrations/${result.fileName}\n`);
} finally {
  await client.end();
  await embedded?.stop();
}
