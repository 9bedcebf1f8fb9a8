import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import { withMigrator } from '../src/db/migrate.js';
import { ENTITIES } from '../src/entities/index.js';
import { adminQuery, createDatabase, databaseUrl } from './helpers/app.js';

// The entities are the schema of record of their tables: on a database migrated from scratch, MikroORM's diff of
// them is empty. While the entities cover part of the tables, the only statements the diff may hold are the drops of
// foreign keys that tables without an entity yet hold to each other (MikroORM does not know them); anything on a
// table an entity names is a difference between the entity and the migrations.

let name: string;
let url: string;
let orm: MikroORM;

/** The diff's statements, one per entry. */
async function diff(): Promise<string[]> {
  const sql = await orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false, dropTables: false });
  return sql
    .split(/;\s*\n/)
    .map((statement) => statement.trim().replace(/;$/, ''))
    .filter(Boolean);
}

const modelled = () => new Set(Object.values(orm.getMetadata().getAll()).map((meta) => meta.tableName));

/** A drop of a foreign key between tables no entity names yet (the slice's edge). */
const outsideTheModel = (statement: string, tables: Set<string>) => {
  const match = /^alter table "(\w+)" drop constraint "\w+"$/.exec(statement);
  return match !== null && !tables.has(match[1]);
};

before(async () => {
  name = await createDatabase();
  url = databaseUrl(name);
  await withMigrator(url, (migrator) => migrator.up());
  orm = await MikroORM.init({
    clientUrl: url,
    entities: ENTITIES,
    pool: { min: 0, max: 1 },
    allowGlobalContext: false,
    debug: false,
  });
});
after(async () => {
  await orm?.close(true);
  if (name) await adminQuery(`DROP DATABASE IF EXISTS "${name}"`);
});

describe('the entities against the migrations', () => {
  it('name the tables of the aggregates modelled so far, pivot included', () => {
    assert.deepEqual([...modelled()].sort(), [
      'agents',
      'campaigns',
      'companies',
      'modules',
      'permissions',
      'pipeline_stages',
      'pipelines',
      'revoked_tokens',
      'role_permissions',
      'roles',
      'users',
    ]);
  });

  it('diff to nothing on a database migrated from scratch', async () => {
    const tables = modelled();
    assert.deepEqual(
      (await diff()).filter((statement) => !outsideTheModel(statement, tables)),
      [],
    );
  });

  it('and the diff sees a column that differs (the check can fail)', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('ALTER TABLE revoked_tokens ALTER COLUMN jti TYPE varchar(80)');
      await client.query('DROP INDEX roles_title_trgm_index');
      await client.query('ALTER TABLE pipeline_stages DROP CONSTRAINT pipeline_stages_pipeline_id_position_unique');
    } finally {
      await client.end();
    }
    const found = (await diff()).filter((statement) => !outsideTheModel(statement, modelled()));
    assert.ok(
      found.some((s) => /alter table "revoked_tokens" alter column "jti" type varchar\(64\)/.test(s)),
      found.join('\n'),
    );
    assert.ok(
      found.some((s) => /roles_title_trgm_index/.test(s)),
      found.join('\n'),
    );
    assert.ok(
      found.some((s) => /pipeline_stages_pipeline_id_position_unique/.test(s)),
      found.join('\n'),
    );
  });
});
