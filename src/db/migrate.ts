import type { MikroORM } from '@mikro-orm/postgresql';
import { readdirSync } from 'node:fs';

// The migrator (@mikro-orm/migrations, umzug and its command-line parts: some
// 200 modules) is loaded only when a migration is to be run or written. A
// process starting on a database that is up to date, which is most starts,
// finds that out with one query.

export const MIGRATIONS_TABLE = 'mikro_orm_migrations';

/** The migrator of this ORM, registered on first use. */
export async function migrator(orm: MikroORM) {
  const { Migrator } = await import('@mikro-orm/migrations');
  if (!orm.config.getExtension('@mikro-orm/migrator')) Migrator.register(orm);
  return orm.getMigrator();
}

/** The names of the migrations in the migrations folder that the database has not applied. */
export async function pendingMigrations(orm: MikroORM): Promise<string[]> {
  const folder = orm.config.get('migrations').path!;
  const names = readdirSync(folder)
    .filter((file) => /^Migration.*\.js$/.test(file))
    .map((file) => file.slice(0, -'.js'.length));
  const connection = orm.em.getConnection();
  const [{ present }] = await connection.execute<Array<{ present: boolean }>>(
    `SELECT to_regclass('${MIGRATIONS_TABLE}') IS NOT NULL AS present`,
  );
  if (!present) return names;
  const applied = new Set(
    (await connection.execute<Array<{ name: string }>>(`SELECT name FROM ${MIGRATIONS_TABLE}`)).map((row) => row.name),
  );
  return names.filter((name) => !applied.has(name));
}

/** Applies what is pending; loads the migrator only when something is. */
export async function migrate(orm: MikroORM): Promise<void> {
  if ((await pendingMigrations(orm)).length === 0) return;
  await (await migrator(orm)).up();
}
