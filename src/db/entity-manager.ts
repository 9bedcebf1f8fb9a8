import { type EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { ENTITIES } from '../entities/index.js';

// The entities at run time (docs/adr/0078-one-unit-of-work-with-the-entity-manager.md): one MikroORM per process,
// which opens no connection of its own. Each unit of work forks its EntityManager, and every statement of that fork
// runs where the unit's other statements run: on its transaction's connection, or on the reading pool outside one.
// So a change made through the entities, the statements written by hand beside it and the events it records
// (the outbox rows, the NOTIFY after the commit) commit or roll back together.

export type { EntityManager };

/** The process's MikroORM: the entities' metadata and a driver, no pool of its own (`connect: false`). */
export function openEntities(databaseUrl: string): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: databaseUrl,
    entities: ENTITIES,
    connect: false,
    forceUtcTimezone: true,
    allowGlobalContext: false,
    debug: false,
    // Never used: every fork runs on the connection it is given.
    pool: { min: 0, max: 1 },
  });
}

/** What a fork's statements run on: a transaction's connection, or a pool (a connection per statement). */
export type StatementHost = pg.Pool | pg.PoolClient;

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
  const client = Object.create(orm.em.getKnex().client) as {
    transacting: boolean;
    acquireConnection: () => Promise<pg.PoolClient>;
    releaseConnection: (connection: pg.PoolClient) => Promise<void>;
  };
  client.transacting = true;
  if (isPool(host)) {
    client.acquireConnection = () => host.connect();
    client.releaseConnection = async (connection) => connection.release();
  } else {
    client.acquireConnection = async () => host;
    client.releaseConnection = async () => undefined;
  }
  return client;
}

const isPool = (host: StatementHost): host is pg.Pool => 'totalCount' in host;
