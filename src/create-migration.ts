import 'reflect-metadata';
import { MikroORM } from '@mikro-orm/postgresql';
import path from 'node:path';
import { loadConfig } from './config/config.js';
import { startEmbeddedPostgres } from './db/embedded.js';
import { migrate, migrator } from './db/migrate.js';
import { ormConfig } from './mikro-orm.config.js';
import { createLogger } from './observability/logger.js';

// `npm run migration:create -- <name>`: migrates the development database,
// then writes an empty src/migrations/Migration<timestamp>_<name>.ts to fill
// in. Migrations are the schema (docs/adr/0060-one-way-into-the-database.md):
// the entities map the tables the ORM still writes, and are not diffed.

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  process.stderr.write('usage: npm run migration:create -- <snake_case_name>\n');
  process.exit(64);
}
const config = loadConfig();
const embedded = config.databaseUrl
  ? undefined
  : await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'), 'switchboard', createLogger('warn'));
const orm = await MikroORM.init(ormConfig(config.databaseUrl ?? embedded!.url));
try {
  await migrate(orm);
  const result = await (await migrator(orm)).createMigration(undefined, true, false, name);
  process.stdout.write(`wrote src/migrations/${result.fileName}\n`);
} finally {
  await orm.close(true);
  await embedded?.stop();
}
