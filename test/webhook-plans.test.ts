import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ulid } from 'ulid';
import { CLAIM, ENGINE_SESSION } from '../src/webhooks/engine/claim.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// The claim keeps one generic plan per connection (ENGINE_SESSION), made at its first execution, maybe while the
// delivery tables were nearly empty (a new deployment). Its cost must not grow with the backlog from then on: it
// probes each endpoint's due work by its index and takes its picks by their ids, never walking every due delivery.
// Checked as PostgreSQL ran it: EXPLAIN ANALYZE of the plan made over nearly empty tables, run over grown ones.

const HISTORY = 4_000;
const ENDPOINTS = 10;
const BACKLOG = 600;
/** Rows of the delivery tables the claim may read: its batch of 32, each endpoint's probes and its picks' rows. */
const BOUND = 400;

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows a plan read from the delivery tables, and rows its joins turned away (each loop counted). */
function rowsRead(node: PlanNode): number {
  const loops = node['Actual Loops'];
  const own =
    node['Relation Name'] === 'webhook_deliveries' || node['Relation Name'] === 'webhook_attempts'
      ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) *
        loops
      : 0;
  const joined = (node['Rows Removed by Join Filter'] ?? 0) * loops;
  return own + joined + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

describe("the delivery engine's claim plan", () => {
  let app: TestApp;
  let engine: pg.Client;
  const explain = async (statement: string) => {
    await engine.query('BEGIN');
    try {
      const { rows } = await engine.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`);
      return rowsRead(rows[0]['QUERY PLAN'][0].Plan);
    } finally {
      await engine.query('ROLLBACK');
    }
  };

  before(async () => {
    // An API process: no pump of its own claims what this test writes.
    app = await startTestApp({ PROCESS_ROLE: 'api' });
    // The delivery log's partitions, as a deployment's workers make them (webhooks/engine/partitions.ts).
    await app.running.services.deliverer.partitions.prepare(new Date(), 30 * 86_400_000);
    engine = new pg.Client({ connectionString: app.running.databaseUrl, options: ENGINE_SESSION });
    await engine.connect();
    await engine.query(`PREPARE claim(int, int, float8) AS ${CLAIM}`);
    // Planned now, over the tables as a new deployment has them.
    await engine.query('EXECUTE claim(4, 32, 30)');
    // Grown: a history of settled deliveries, and a backlog due on ten endpoints.
    const [{ id: company }] = await app.sql<{ id: number }>('SELECT min(id) AS id FROM companies');
    const hooks = await app.sql<{ id: number }>(
      `INSERT INTO webhooks (created_at, updated_at, company_id, title, url, form_data, events, secret_sealed)
       SELECT now(), now(), $1, 'Plans ' || g, 'http://127.0.0.1:9/plans', '[]', '["agent.created"]', 'sealed'
       FROM generate_series(1, $2::int) g RETURNING id`,
      [company, ENDPOINTS],
    );
    await app.sql('INSERT INTO webhook_counters (webhook_id) SELECT unnest($1::int[])', [hooks.map((h) => h.id)]);
    await app.sql(
      `INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, attempt_count, created_at)
       SELECT id, $1, $2, 'agent.created', 'succeeded', '{}', 1, now() - interval '1 day' FROM unnest($3::text[]) id`,
      [hooks[0].id, company, Array.from({ length: HISTORY }, () => `msg_${ulid()}`)],
    );
    await app.sql(
      `INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, created_at, next_attempt_at)
       SELECT id, ($1::int[])[1 + g % $2], $3, 'agent.created', 'pending', '{}', now(), now() - interval '1 second'
       FROM unnest($4::text[]) WITH ORDINALITY AS due(id, g)`,
      [hooks.map((h) => h.id), ENDPOINTS, company, Array.from({ length: BACKLOG }, () => `msg_${ulid()}`)],
    );
  });

  after(async () => {
    await engine?.end();
    await app?.close();
  });

  it('a claim reads its picks and its endpoints, not the backlog', async () => {
    const read = await explain('EXECUTE claim(4, 32, 30)');
    assert.ok(read <= BOUND, `the claim read ${read} rows of the delivery tables (a backlog of ${BACKLOG})`);
    // And the plan claims: a batch, in turns over the ten endpoints (four slots each).
    const { rows } = await engine.query<{ id: string | null; webhook_id: number }>('EXECUTE claim(4, 32, 30)');
    const claimed = rows.filter((row) => row.id !== null);
    assert.equal(claimed.length, 32);
    assert.equal(new Set(claimed.map((row) => row.webhook_id)).size, ENDPOINTS);
  });
});
