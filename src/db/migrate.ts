import type { Migrator } from '@mikro-orm/migrations';
import type pg from 'pg';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Migrations are the schema (docs/adr/0060-one-way-into-the-database.md):
// each is a MikroORM migration, run by its migrator (umzug and some 200
// modules), which is loaded only when one is to be run or written. A process
// starting on a database that is up to date, which is most starts, finds that
// out with one query on a connection it has already.

export const MIGRATIONS_TABLE = 'mikro_orm_migrations';
const FOLDER = path.join(path.dirname(fileURLToPath(import.meta.url)), '../migrations');

/** The names of the migrations in the migrations folder that the database has not applied. */
export async function pendingMigrations(client: pg.Client): Promise<string[]> {
  const names = readdirSync(FOLDER)
    .filter((file) => /^Migration.*\.js$/.test(file))
    .map((file) => file.slice(0, -'.js'.length));
  const { rows } = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [
    MIGRATIONS_TABLE,
  ]);
  if (!rows[0].present) return names;
  const applied = new Set(
    (await client.query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE}`)).rows.map((row) => row.name),
  );
  return names.filter((name) => !applied.has(name));
}

/** MikroORM on the database, for its migrator alone (no entities), and closed when `fn` ends. */
export async function withMigrator<T>(
  databaseUrl: string,
  fn: (migrator: Migrator) => Promise<T>,
  logger?: (message: string) => void,
): Promise<T> {
  const [{ MikroORM }, { Migrator }, { migrationConfig }] = await Promise.all([
    import('@mikro-orm/postgresql'),
    import('@mikro-orm/migrations'),
    import('../mikro-orm.config.js'),
  ]);
  const orm = await MikroORM.init({ ...migrationConfig(databaseUrl, logger), extensions: [Migrator] });
  try {
    return await fn(orm.getMigrator() as Migrator);
  } finally {
    await orm.close(true);
  }
}

/** Applies what is pending (`client` holds the start-up lock); starts the migrator only when something is. */
export async function migrate(
  client: pg.Client,
  databaseUrl: string,
  logger?: (message: string) => void,
): Promise<void> {
  if ((await pendingMigrations(client)).length === 0) return;
  await withMigrator(databaseUrl, (migrator) => migrator.up(), logger);
}
