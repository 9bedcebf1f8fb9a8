import pg from 'pg';

/**
 * The pool of plain reads (`RequestContext.read`): rows exactly as the ORM's
 * raw statements give them (timestamps and intervals as PostgreSQL's text,
 * read with `dbDate`), without the ORM or a query builder in between.
 */
export function readingPool(databaseUrl: string, max = 10): pg.Pool {
  const types = new pg.TypeOverrides();
  for (const oid of [1082, 1114, 1184, 1186]) types.setTypeParser(oid, (text: string) => text); // date, timestamp, timestamptz, interval
  return new pg.Pool({ connectionString: databaseUrl, max, types });
}

/**
 * Ends a pool once its connections are really closed: `pool.end()` resolves as
 * soon as each connection is asked to close, so a database stopped right after
 * would still find them open (and they would report being terminated).
 */
export function closablePool(pool: pg.Pool): () => Promise<void> {
  const open = new Set<pg.PoolClient>();
  pool.on('connect', (client) => {
    open.add(client);
    client.once('end', () => open.delete(client));
  });
  return async () => {
    const closing = [...open].map((client) => new Promise<void>((resolve) => client.once('end', () => resolve())));
    await pool.end();
    await Promise.all(closing);
  };
}
