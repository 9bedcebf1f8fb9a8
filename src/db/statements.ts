import type pg from 'pg';

// Plain statements (RequestContext.read): what they run on, the transaction
// of a plain unit of work, and the names they are prepared under.

/** What plain statements run on: a transaction's connection, or a pool for a statement that is its own transaction. */
export interface StatementRunner {
  query(config: pg.QueryConfig): Promise<pg.QueryResult>;
}

/** The pool, for one statement only: a unit of work of one statement that tried a second would no longer be one transaction. */
export function oneStatementOf(pool: pg.Pool): StatementRunner {
  let ran = false;
  return {
    query(config) {
      if (ran) return Promise.reject(new Error('A unit of work of one statement ran a second one.'));
      ran = true;
      return pool.query(config);
    },
  };
}

// Plain reads are few distinct texts, each run often: each is prepared once per
// connection, so PostgreSQL plans it once instead of at every call (a list's
// page-and-total statement takes longer to plan than to run). A text past the
// first thousand (never expected) runs unprepared.
const statementNames = new Map<string, string>();
export function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < 1000)
    statementNames.set(text, (name = `read_${statementNames.size + 1}`));
  return name;
}

/** A transaction of plain statements on a connection of `pool`: committed when fn resolves, rolled back when it throws. */
export async function plainTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A connection lost while checked out (a database restart) reports it here, not as an uncaught error; the statement in progress fails too.
  const lost = (error: Error) => (broken = error);
  client.on('error', lost);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A connection that cannot even roll back is not given to anyone else.
    await client.query('ROLLBACK').catch((failure: Error) => (broken = failure));
    throw error;
  } finally {
    client.off('error', lost);
    client.release(broken);
  }
}
