import 'reflect-metadata';
import { MikroORM } from '@mikro-orm/postgresql';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../config/config.js';
import { startEmbeddedPostgres } from '../db/embedded.js';
import { migrate } from '../db/migrate.js';
import { ormConfig } from '../mikro-orm.config.js';
import { createLogger } from '../observability/logger.js';
import { DEMO_LOGINS, DEMO_PASSWORD, seedDemo, seedDemoIfEmpty } from './demo.js';

// `npm run seed` adds the demo dataset to an empty database;
// `npm run seed -- --reset` empties the database first.

const config = loadConfig();
const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
const reset = process.argv.includes('--reset');
const embedded = config.databaseUrl
  ? undefined
  : await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'), 'switchboard', log);
if (reset && embedded?.sharedWith) {
  process.stderr.write(
    `A service (pid ${embedded.sharedWith}) is running on the database in ${config.dataDir}; stop it ` +
      `before \`npm run seed -- --reset\` empties that database.\n`,
  );
  process.exit(1);
}
const databaseUrl = config.databaseUrl ?? embedded!.url;
const orm = await MikroORM.init(ormConfig(databaseUrl));
const client = new pg.Client({ connectionString: databaseUrl });
await client.connect();
const sql = async (text: string, params?: unknown[]) => (await client.query(text, params)).rows;
try {
  if (reset) await orm.em.getConnection().execute('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
  await migrate(orm);
  const seeded = reset
    ? (await seedDemo(orm.em.fork(), sql, config.appKey), true)
    : await seedDemoIfEmpty(orm.em.fork(), sql, config.appKey);
  if (seeded) {
    process.stdout.write(
      `Demo data created. Logins (password "${DEMO_PASSWORD}"):\n${DEMO_LOGINS.map((l) => `  ${l.email}`).join('\n')}\n`,
    );
  } else {
    process.stdout.write(
      'The database already has data; nothing was added. Use `npm run seed -- --reset` to start over.\n',
    );
  }
} finally {
  await client.end();
  await orm.close(true);
  await embedded?.stop();
}
