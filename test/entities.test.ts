import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import { withMigrator } from '../src/db/migrate.js';
import { migrationConfig } from '../src/mikro-orm.config.js';
import { adminQuery, createDatabase, databaseUrl } from './helpers/app.js';

// The entities are the schema of record of every product table: on a database migrated from scratch, MikroORM's diff
// of them is empty (the tables libraries own are left out, as a generated migration leaves them).

let name: string;
let url: string;
let orm: MikroORM;

/** The diff's statements, one per entry. */
async function diff(): Promise<string[]> {
  const sql = await orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false });
  return sql
    .split(/;\s*\n/)
    .map((statement) => statement.trim().replace(/;$/, ''))
    .filter(Boolean);
}

const modelled = () =>
  new Set(
    Object.values(orm.getMetadata().getAll())
      .filter((meta) => !meta.embeddable)
      .map((meta) => meta.tableName),
  );

before(async () => {
  name = await createDatabase();
  url = databaseUrl(name);
  await withMigrator(url, (migrator) => migrator.up());
  orm = await MikroORM.init(migrationConfig(url));
});
after(async () => {
  await orm?.close(true);
  if (name) await adminQuery(`DROP DATABASE IF EXISTS "${name}"`);
});

describe('the entities against the migrations', () => {
  it('name every table of the product, pivot included, and none of the libraries', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client
      // A partition is its table's (the delivery log's, webhooks/engine/partitions.ts), not a table of its own.
      .query<{ name: string }>(
        `SELECT relname AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p')
           AND NOT relispartition`,
      )
      .finally(() => client.end());
    const libraries = rows.map((row) => row.name).filter((table) => !modelled().has(table));
    assert.deepEqual(libraries.sort(), ['api_budgets', 'mikro_orm_migrations']);
    assert.deepEqual([...modelled()].sort(), [
      'agent_tools',
      'agents',
      'call_path_stats',
      'call_turns',
      'calls',
      'campaigns',
      'companies',
      'contacts',
      'decision_endpoints',
      'do_not_call',
      'event_log',
      'events',
      'idempotency_keys',
      'lead_attempts',
      'leads',
      'listen_exchanges',
      'listen_sessions',
      'messaging_campaigns',
      'modules',
      'number_purchases',
      'permissions',
      'phone_numbers',
      'pipeline_stages',
      'pipelines',
      'revoked_tokens',
      'role_permissions',
      'roles',
      'sms_messages',
      'spam_protected_numbers',
      'telco_accounts',
      'users',
      'webhook_attempts',
      'webhook_counters',
      'webhook_deliveries',
      'webhook_stats',
      'webhooks',
      'workflow_folders',
      'workflows',
    ]);
  });

  it('diff to nothing on a database migrated from scratch', async () => {
    assert.deepEqual(await diff(), []);
  });

  it('and the diff sees a column that differs (the check can fail)', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('ALTER TABLE revoked_tokens ALTER COLUMN jti TYPE varchar(80)');
      await client.query('DROP INDEX roles_title_trgm_index');
      await client.query('ALTER TABLE pipeline_stages DROP CONSTRAINT pipeline_stages_pipeline_id_position_unique');
      await client.query('DROP INDEX webhook_deliveries_webhook_due_index');
      await client.query('ALTER TABLE calls DROP CONSTRAINT calls_decision_fallback_reason_check');
    } finally {
      await client.end();
    }
    const found = await diff();
    assert.ok(
      found.some((s) => /alter table "revoked_tokens" alter column "jti" type varchar\(64\)/.test(s)),
      found.join('\n'),
    );
    assert.ok(
      found.some((s) => /roles_title_trgm_index/.test(s)),
      found.join('\n'),
    );
    for (const name of ['pipeline_stages_pipeline_id_position_unique', 'webhook_deliveries_webhook_due_index']) {
      assert.ok(
        found.some((s) => s.includes(name)),
        `${name} missing from:\n${found.join('\n')}`,
      );
    }
    assert.ok(
      found.some((s) => /alter table "calls" add constraint "calls_decision_fallback_reason_check" check/.test(s)),
      found.join('\n'),
    );
  });
});
