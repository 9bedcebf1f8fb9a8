import 'reflect-metadata';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../config/config.js';
import { startEmbeddedPostgres } from '../db/embedded.js';
import { migrate } from '../db/migrate.js';
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
const client = new pg.Client({ connectionString: databaseUrl });
await client.connect();
const sql = async (text: string, params?: unknown[]) => (await client.query(text, params)).rows;
try {
  if (reset) await client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
  await migrate(client, databaseUrl);
  // One transaction: stopped half-way, it leaves the database as it found it.
  await client.query('BEGIN');
  const seeded = reset ? (await seedDemo(sql, config.appKey), true) : await seedDemoIfEmpty(sql, config.appKey);
  await client.query('COMMIT');
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
  await embedded?.stop();
}
