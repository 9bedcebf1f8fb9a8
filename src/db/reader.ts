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
