import { type EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { ENTITIES } from '../entities/index.js';
import { statementName } from './statement-names.js';

// The entities at run time (docs/adr/0078-one-unit-of-work-with-the-entity-manager.md): one MikroORM per process,
// which opens no connection of its own. Each unit of work forks its EntityManager, and every statement of that fork
// runs where the unit's other statements run: on its transaction's connection, or on the reading pool outside one.
// So a change made through the entities, the statements written by hand beside it and the events it records
// (the outbox rows, the NOTIFY after the commit) commit or roll back together.

export type { EntityManager };

/** The process's MikroORM: the entities' metadata and a driver, no pool of its own (`connect: false`). */
export async function openEntities(databaseUrl: string): Promise<MikroORM> {
  const orm = await MikroORM.init({
    clientUrl: databaseUrl,
    entities: ENTITIES,
    connect: false,
    forceUtcTimezone: true,
    allowGlobalContext: false,
    debug: false,
    // Never used: every fork runs on the connection it is given.
    pool: { min: 0, max: 1 },
  });
  withValuesApart(orm);
  return orm;
}

/**
 * MikroORM 6 writes a statement's values into its text before it runs it. Here the values travel apart, as bound
 * parameters (knex compiles MikroORM's `?` placeholders to `$1`, `$2`...), and the statement runs on the fork's
 * connection prepared under a name, as `ctx.sql`'s do (db/statement-names.ts): a value never reaches a log line or
 * a trace's `db.statement`, and PostgreSQL plans a statement once per connection, whatever its values (ADR 0078).
 */
function withValuesApart(orm: MikroORM): void {
  type Query = string | { client: { transacting?: boolean }; toSQL(): { sql: string; bindings?: readonly unknown[] } };
  const connection = orm.em.getConnection() as unknown as {
    execute(query: Query, params?: unknown[], method?: string, ctx?: object, log?: object): Promise<unknown>;
    executeQuery(query: string, run: () => Promise<unknown>, context: object): Promise<unknown>;
    transformRawResult(result: unknown, method: string): unknown;
  };
  const knex = orm.em.getKnex();
  connection.execute = async (query, params = [], method = 'all', ctx, log) => {
    let text: string;
    let values: readonly unknown[] = params;
    if (typeof query === 'string') text = query;
    else {
      ctx ??= query.client.transacting ? query : undefined;
      ({ sql: text, bindings: values = [] } = query.toSQL());
    }
    const host = (ctx as { client?: Partial<HostClient> } | undefined)?.client;
    if (!host?.acquireConnection || !host.releaseConnection)
      throw new Error('An EntityManager not made by the request context ran a statement.');
    const native = knex
      .raw(text, values as never[])
      .toSQL()
      .toNative();
    const run = async () => {
      const client = await host.acquireConnection!();
      try {
        const config = { name: statementName(native.sql), text: native.sql, values: native.bindings as unknown[] };
        return connection.transformRawResult(await client.query(config), method);
      } finally {
        await host.releaseConnection!(client);
      }
    };
    return connection.executeQuery(native.sql, run, { query: native.sql, params: values, ...log });
  };
}

/** What a fork's connection is taken from: the host's (`clientOn`). */
interface HostClient {
  transacting: boolean;
  acquireConnection: () => Promise<StatementRunner>;
  releaseConnection: (connection: StatementRunner) => Promise<void>;
}

/** What runs a statement: a transaction (context/transaction.ts), or a pool for a statement that is its own. */
export interface StatementRunner {
  query(config: pg.QueryConfig): Promise<pg.QueryResult>;
}

/** What a fork's statements run on: a transaction, or a pool (a connection per statement). */
export type StatementHost = pg.Pool | StatementRunner;

/**
 * A fork of the EntityManager whose statements run on `host`. The fork's transaction context is a knex transaction
 * client of the driver's dialect that takes its connection from `host` instead of from a pool of its own; it begins
 * and commits nothing (the unit of work does: request-context.ts), so the fork's `flush` writes without a
 * transaction of its own.
 */
export function entityManagerOn(orm: MikroORM, host: StatementHost): EntityManager {
  const em = orm.em.fork({ clear: true, useContext: false });
  em.setTransactionContext({ client: clientOn(orm, host) });
  return em;
}

/** A knex client of the driver's own dialect and settings, whose connection is the host's. */
function clientOn(orm: MikroORM, host: StatementHost): object {
  const client = Object.create(orm.em.getKnex().client) as HostClient;
  client.transacting = true;
  if (isPool(host)) {
    // A connection lost while checked out (a database restart between its statements) is noted here, not thrown as
    // an uncaught error, and is not given back to the pool.
    const lost = new WeakMap<StatementRunner, { error?: Error; listener: (error: Error) => void }>();
    client.acquireConnection = async () => {
      const connection = await host.connect();
      const held: { error?: Error; listener: (error: Error) => void } = { listener: (error) => (held.error = error) };
      connection.on('error', held.listener);
      lost.set(connection, held);
      return connection;
    };
    client.releaseConnection = async (runner) => {
      const connection = runner as pg.PoolClient;
      const held = lost.get(connection);
      if (held) connection.off('error', held.listener);
      connection.release(held?.error);
    };
  } else {
    client.acquireConnection = async () => host;
    client.releaseConnection = async () => undefined;
  }
  return client;
}

const isPool = (host: StatementHost): host is pg.Pool => 'totalCount' in host;
