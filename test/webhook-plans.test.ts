import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { encodeTime, ulid } from 'ulid';
import { CLAIM, ENGINE_SESSION } from '../src/webhooks/engine/claim.js';
import { settleSuccesses } from '../src/webhooks/engine/settle.js';
import { startTestApp, type TestApp } from './helpers/app.js';

const DAY = 86_400_000;

// The claim and the settles keep one generic plan per connection (ENGINE_SESSION), made at their first execution,
// maybe while the delivery tables were nearly empty (a new deployment), or just after a burst of writes left every
// delivery pending in the statistics. Their cost must not grow with the backlog nor with the history from then on:
// they probe each endpoint's due work by its due index and take their picks by their ids, never walking every due
// delivery nor every delivery an endpoint ever had; and a delivery ordered per subject looks for an older pending one of
// its subject by the ordering index, not through the history either. Checked as PostgreSQL ran them: EXPLAIN ANALYZE
// of the plans made over those states of the tables, run over grown ones.

const HISTORY = 4_000;
const ENDPOINTS = 10;
const BACKLOG = 600;
/** Rows of the delivery tables the claim may read: its batch of 32, each endpoint's probes and its picks' rows. */
const BOUND = 400;
/** Rows of the delivery tables the settle of four deliveries of one endpoint may read. */
const SETTLE_BOUND = 60;
/** Rows of the delivery tables the settle of the whole batch of 32 may read: in proportion to it, never its square. */
const BATCH_SETTLE_BOUND = 320;
/** Half the deliveries are ordered per subject (webhooks with ordering: subject), the others not. */
const SUBJECT = `CASE WHEN g % 2 = 0 THEN 'agent:' || g % 97 END`;
/** Deliveries of a burst, all pending when the statistics were taken. */
const BURST = 200;

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
    // The tables or any of their partitions (webhook_deliveries_p20261202, webhook_attempts_default, …).
    /^webhook_(deliveries|attempts)(_|$)/.test(node['Relation Name'] ?? '')
      ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) *
        loops
      : 0;
  const joined = (node['Rows Removed by Join Filter'] ?? 0) * loops;
  return own + joined + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

type State = 'new' | 'analyzed' | 'burst';
const STATES: Record<State, string> = {
  new: 'tables never analyzed',
  analyzed: 'empty tables analyzed (as the seed leaves them)',
  burst: 'a burst all pending',
};

describe("the delivery engine's claim and settle plans", () => {
  let app: TestApp;
  /** Connections of the engine's settings, each with the statements planned over one state of the tables. */
  const engines: Record<State, pg.Client | undefined> = { new: undefined, analyzed: undefined, burst: undefined };
  let hooks: number[];

  /** A connection of the engine's settings with the claim and the settle of successes planned over the tables as they are now. */
  const planned = async () => {
    const engine = new pg.Client({ connectionString: app.running.databaseUrl, options: ENGINE_SESSION });
    await engine.connect();
    await engine.query(`PREPARE claim(int, int, float8, text, text) AS ${CLAIM}`);
    await engine.query(
      `PREPARE settle(text[], bigint[], int[], int[], int[], text[], bool[], int, int, text, text, text, text) AS ${settleSuccesses(true, 4)}`,
    );
    // Planned at their first execution (force_generic_plan), then rolled back: the plans stay.
    await engine.query('BEGIN');
    const { rows } = await engine.query<Lease>(`EXECUTE claim(4, 32, 30, ${dueWindow()})`);
    await settle(engine, rows);
    await engine.query('ROLLBACK');
    return engine;
  };
  /** The due window (webhooks/engine/due-window.ts) of these rows, all made now: a day either side. */
  const dueWindow = () => `'msg_${encodeTime(Date.now() - DAY, 10)}', 'msg_${encodeTime(Date.now() + DAY, 10)}'`;
  interface Lease {
    id: string | null;
    webhook_id: number;
    lease_token: string;
    attempt_count: number;
  }
  /** The settle of successes for the claimed rows, as EXPLAIN ANALYZE read it when `explain`. */
  const settle = async (engine: pg.Client, rows: Lease[], explain = false) => {
    const leases = rows.filter((row) => row.id !== null);
    const ids = leases.map((l) => l.id!).sort();
    // EXECUTE takes no bound parameters: the arrays as literals.
    const array = (values: unknown[]) => engine.escapeLiteral(`{${values.join(',')}}`);
    const columns = [
      leases.map((l) => l.id),
      leases.map((l) => l.lease_token),
      leases.map((l) => l.attempt_count),
      leases.map(() => 200),
      leases.map(() => 5),
      leases.map(() => 'ok'),
      leases.map(() => true),
    ].map(array);
    const { rows: plan } = await engine.query(
      `${explain ? 'EXPLAIN (ANALYZE, FORMAT JSON) ' : ''}EXECUTE settle(${columns.join(', ')}, 4, 8, ` +
        `'${ids[0] ?? ''}', '${ids.at(-1) ?? ''}', ${dueWindow()})`,
    );
    return explain ? rowsRead(plan[0]['QUERY PLAN'][0].Plan) : 0;
  };
  /** Rows the claim read (EXPLAIN ANALYZE), then rows the settle of what it claims read; all rolled back. */
  const explained = async (engine: pg.Client) => {
    await engine.query('BEGIN');
    try {
      const { rows } = await engine.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE claim(4, 32, 30, ${dueWindow()})`);
      const claimRead = rowsRead(rows[0]['QUERY PLAN'][0].Plan);
      await engine.query('ROLLBACK');
      await engine.query('BEGIN');
      const claimed = await engine.query<Lease>(`EXECUTE claim(4, 32, 30, ${dueWindow()})`);
      // Settled: the endpoint with the history, whose due work the settle then probes; then the whole batch.
      const first = claimed.rows.filter((row) => row.webhook_id === hooks[0]);
      await engine.query('SAVEPOINT one');
      const settleRead = await settle(engine, first, true);
      await engine.query('ROLLBACK TO SAVEPOINT one');
      return { claimRead, settleRead, batchRead: await settle(engine, claimed.rows, true), claimed: claimed.rows };
    } finally {
      await engine.query('ROLLBACK');
    }
  };

  before(async () => {
    // An API process: no pump of its own claims what this test writes.
    app = await startTestApp({ PROCESS_ROLE: 'api' });
    // The delivery log's partitions, as a deployment's workers make them (webhooks/engine/partitions.ts).
    await app.running.services.deliverer.partitions.prepare(new Date(), 30 * 86_400_000);
    const [{ id: company }] = await app.sql<{ id: number }>('SELECT min(id) AS id FROM companies');
    hooks = (
      await app.sql<{ id: number }>(
        `INSERT INTO webhooks (created_at, updated_at, company_id, title, url, form_data, events, secret_sealed)
         SELECT now(), now(), $1, 'Plans ' || g, 'http://127.0.0.1:9/plans', '[]', '["agent.created"]', 'sealed'
         FROM generate_series(1, $2::int) g RETURNING id`,
        [company, ENDPOINTS],
      )
    ).map((h) => h.id);
    await app.sql('INSERT INTO webhook_counters (webhook_id) SELECT unnest($1::int[])', [hooks]);
    // Planned over the tables as a new deployment has them: never analyzed, then analyzed while empty.
    engines.new = await planned();
    await app.sql('ANALYZE webhook_deliveries');
    engines.analyzed = await planned();
    // A burst of writes to one endpoint, all of it pending when the statistics are taken; planned then.
    const pending = async (count: number, endpoints: number, age: string) =>
      app.sql(
        `INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, created_at, next_attempt_at, order_key)
         SELECT id, ($1::int[])[1 + g % $2], $3, 'agent.created', 'pending', '{}', now() - $5::interval,
           now() - interval '1 second', ${SUBJECT}
         FROM unnest($4::text[]) WITH ORDINALITY AS due(id, g)`,
        [hooks, endpoints, company, Array.from({ length: count }, () => `msg_${ulid()}`), age],
      );
    await pending(BURST, 1, '2 days');
    await app.sql('ANALYZE webhook_deliveries');
    engines.burst = await planned();
    // Grown: the burst settled, a history of settled deliveries of that endpoint, and a backlog due on ten endpoints.
    await app.sql(`UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL`);
    await app.sql(
      `INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, attempt_count, created_at, order_key)
       SELECT id, $1, $2, 'agent.created', 'succeeded', '{}', 1, now() - interval '1 day', ${SUBJECT}
       FROM unnest($3::text[]) WITH ORDINALITY AS h(id, g)`,
      [hooks[0], company, Array.from({ length: HISTORY }, () => `msg_${ulid()}`)],
    );
    await pending(BACKLOG, ENDPOINTS, '0 seconds');
  });

  after(async () => {
    for (const engine of Object.values(engines)) await engine?.end();
    await app?.close();
  });

  for (const state of Object.keys(STATES) as State[])
    it(`planned over ${STATES[state]}, a claim and its settle read their picks and endpoints, not the backlog nor the history`, async () => {
      const { claimRead, settleRead, batchRead, claimed } = await explained(engines[state]!);
      assert.ok(
        claimRead <= BOUND,
        `the claim read ${claimRead} rows of the delivery tables (a backlog of ${BACKLOG})`,
      );
      // The settle reads its four deliveries and their attempts (each a few times: found, updated) and probes the
      // endpoint's due work.
      assert.ok(
        settleRead <= SETTLE_BOUND,
        `the settle read ${settleRead} rows of the delivery tables (a history of ${HISTORY} on one endpoint)`,
      );
      assert.ok(
        batchRead <= BATCH_SETTLE_BOUND,
        `the settle of the batch of 32 read ${batchRead} rows of the delivery tables`,
      );
      // And the plan claims: a batch, in turns over the ten endpoints (four slots each).
      const leases = claimed.filter((row) => row.id !== null);
      assert.equal(leases.length, 32);
      assert.equal(new Set(leases.map((row) => row.webhook_id)).size, ENDPOINTS);
    });
});
