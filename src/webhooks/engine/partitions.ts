import { decodeTime, encodeTime } from 'ulid';
import type { ContextFactory, RequestContext } from '../../context/request-context.js';
import { holdLock, LOCKS } from '../../db/locks.js';

// The delivery log's partitions (docs/adr/0089-delivery-log-partitions.md). Deliveries, their attempts and events are
// each partitioned by the range of a key that is a ULID after a prefix: its first ten characters are the time it was
// made, so a range of keys is a span of time, and a lookup by id reads one partition. The retention job makes the
// partitions ahead (a week), and drops a partition once all of it is older than the retention: one statement,
// whatever the rows, where a purge row by row wrote every row's deletion, its index entries and its WAL. What the
// retention must still keep is carried into the default partition before the drop: a delivery still pending (a
// paused webhook's) with its attempts, and an event a kept delivery was made of. The default partition also takes a
// row whose time no partition covers (written while no job ran; that span is then left to it); rows there are purged
// one by one, as before.

const DAY_MS = 86_400_000;
/** How far ahead of now partitions are made: a week of the retention job not running loses nothing of the layout. */
export const PARTITIONS_AHEAD_MS = 7 * DAY_MS;
/** About this many partitions span the retention (each a whole number of days). */
const PARTITIONS_PER_RETENTION = 8;
/** DDL waits no longer than this for the tables' locks; the next run tries again. */
const LOCK_TIMEOUT = '2s';

interface LogTable {
  table: string;
  key: string;
  prefix: string;
  options: string;
}

/** Deliveries and their attempts share their ranges (an attempt's key is its delivery's id); events have their own. */
const TABLES: readonly LogTable[] = [
  { table: 'webhook_deliveries', key: 'id', prefix: 'msg_', options: '' },
  // The settle records an attempt's result in place: room on its page keeps that update off the indexes.
  { table: 'webhook_attempts', key: 'delivery_id', prefix: 'msg_', options: ' WITH (fillfactor = 80)' },
  { table: 'events', key: 'id', prefix: 'evt_', options: '' },
];

/** One time partition: its name and the span of time its keys were made in. */
export interface Partition {
  table: string;
  name: string;
  from: number;
  to: number;
}

/** A partition's span in whole days: the retention over about eight, at least a day. */
export function partitionSpanMs(retentionMs: number): number {
  return Math.max(1, Math.ceil(retentionMs / PARTITIONS_PER_RETENTION / DAY_MS)) * DAY_MS;
}

const keyAt = (prefix: string, ms: number) => `${prefix}${encodeTime(ms, 10)}`;
const nameOf = (table: string, from: number) =>
  `${table}_p${new Date(from).toISOString().slice(0, 10).replaceAll('-', '')}`;
const BOUNDS = /FROM \('[a-z]+_([0-9A-Z]{10})'\) TO \('[a-z]+_([0-9A-Z]{10})'\)/;

export class DeliveryLogPartitions {
  constructor(private readonly contexts: ContextFactory) {}

  /** The time partitions of the delivery log's tables, oldest first. */
  async list(ctx: RequestContext = this.contexts.forMaintenance('delivery-log-partitions')): Promise<Partition[]> {
    const rows = await ctx.sql<{ table: string; name: string; bound: string }>(
      `SELECT p.relname AS table, c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
        WHERE p.relname = ANY ($1) AND p.relnamespace = current_schema()::regnamespace`,
      [TABLES.map((t) => t.table)],
    );
    return rows
      .flatMap(({ table, name, bound }) => {
        const match = BOUNDS.exec(bound);
        return match
          ? [
              {
                table,
                name,
                from: decodeTime(`${match[1]}0000000000000000`),
                to: decodeTime(`${match[2]}0000000000000000`),
              },
            ]
          : [];
      })
      .sort((a, b) => a.from - b.from || a.table.localeCompare(b.table));
  }

  /**
   * Makes each table's partitions from where they end (or from today) through `now` and a week ahead, each
   * `partitionSpanMs(retention)` long. Returns the partitions made.
   */
  async prepare(now: Date, retentionMs: number): Promise<Partition[]> {
    const span = partitionSpanMs(retentionMs);
    const existing = await this.list();
    const made: Partition[] = [];
    const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
    for (const table of TABLES) {
      const last = Math.max(0, ...existing.filter((p) => p.table === table.table).map((p) => p.to));
      for (let from = Math.max(last, today); from < now.getTime() + PARTITIONS_AHEAD_MS; from += span) {
        const partition = { table: table.table, name: nameOf(table.table, from), from, to: from + span };
        const fresh = await this.contexts
          .forMaintenance('delivery-log-partitions')
          .unitOfWork((ctx) => this.make(ctx, table, partition));
        if (fresh) made.push(partition);
      }
    }
    return made;
  }

  /**
   * Made apart and attached, with a CHECK of its span first so that attaching it does not read it again. A span the
   * default partition already holds rows of (the job did not run for a week) is left to it: moving them would race
   * the engine (a settle waiting on a row the move deletes finds it gone, and the attempt would be sent again).
   */
  private async make(ctx: RequestContext, table: LogTable, p: Partition): Promise<boolean> {
    const [from, to] = [keyAt(table.prefix, p.from), keyAt(table.prefix, p.to)];
    const range = `"${table.key}" >= '${from}' AND "${table.key}" < '${to}'`;
    // Processes starting together: one makes it, the others find it made.
    await holdLock(ctx, LOCKS.deliveryLogPartitions, 0);
    const [{ made }] = await ctx.sql<{ made: boolean }>('SELECT to_regclass($1) IS NOT NULL AS made', [p.name]);
    if (made) return false;
    const [{ held }] = await ctx.sql<{ held: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM "${table.table}_default" WHERE ${range}) AS held`,
    );
    if (held) return false;
    await ctx.sql(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    await ctx.sql(`CREATE TABLE "${p.name}" (LIKE "${table.table}" INCLUDING DEFAULTS)${table.options}`);
    await ctx.sql(`ALTER TABLE "${p.name}" ADD CONSTRAINT "${p.name}_span" CHECK (${range})`);
    await ctx.sql(`ALTER TABLE "${table.table}" ATTACH PARTITION "${p.name}" FOR VALUES FROM ('${from}') TO ('${to}')`);
    await ctx.sql(`ALTER TABLE "${p.name}" DROP CONSTRAINT "${p.name}_span"`);
    return true;
  }

  /**
   * Drops every partition wholly older than `cutoff`, after carrying what must stay into the default partition:
   * deliveries still pending with their attempts, then events a kept delivery was made of. Returns the partitions
   * dropped.
   */
  async dropBefore(cutoff: Date): Promise<Partition[]> {
    const old = (await this.list()).filter((p) => p.to <= cutoff.getTime());
    const dropped: Partition[] = [];
    const pendingIn = (p: Partition) =>
      `SELECT id FROM webhook_deliveries WHERE id >= '${keyAt('msg_', p.from)}' AND id < '${keyAt('msg_', p.to)}' AND status = 'pending'`;
    // Attempts (a delivery's are in its span) and deliveries, before events: an event is kept by the deliveries that
    // stay. An attempt is kept with a delivery pending when its partition goes; one whose delivery finished meanwhile
    // is purged from the default partition later (WebhookDeliverer.purge).
    for (const p of old.filter((p) => p.table !== 'events')) {
      const retired = await this.retire(p, [
        ...(p.table === 'webhook_deliveries'
          ? [`INSERT INTO webhook_deliveries SELECT * FROM "${p.name}" WHERE status = 'pending'`]
          : [`INSERT INTO webhook_attempts SELECT a.* FROM "${p.name}" a WHERE a.delivery_id IN (${pendingIn(p)})`]),
      ]);
      if (retired) dropped.push(p);
    }
    for (const p of old.filter((e) => e.table === 'events')) {
      // The deliveries of these events, found through each partition's index of event ids in this span.
      const kept = `SELECT event_id FROM webhook_deliveries WHERE event_id >= '${keyAt('evt_', p.from)}' AND event_id < '${keyAt('evt_', p.to)}'`;
      if (await this.retire(p, [`INSERT INTO events SELECT e.* FROM "${p.name}" e WHERE e.id IN (${kept})`]))
        dropped.push(p);
    }
    return dropped;
  }

  /**
   * One partition detached, what must stay of it inserted again (into the default partition, since no partition
   * covers its span any more), and dropped; in one transaction. False when another process dropped it first.
   */
  private retire(p: Partition, carry: string[]): Promise<boolean> {
    return this.contexts.forMaintenance('delivery-log-retention').unitOfWork(async (ctx) => {
      await holdLock(ctx, LOCKS.deliveryLogPartitions, 0);
      const [{ here }] = await ctx.sql<{ here: boolean }>('SELECT to_regclass($1) IS NOT NULL AS here', [p.name]);
      if (!here) return false;
      await ctx.sql(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      await ctx.sql(`ALTER TABLE "${p.table}" DETACH PARTITION "${p.name}"`);
      for (const statement of carry) await ctx.sql(statement);
      await ctx.sql(`DROP TABLE "${p.name}"`);
      return true;
    });
  }
}
