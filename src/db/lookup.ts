import type { RequestContext } from '../context/request-context.js';
import type { IdCodec } from '../kernel/ids.js';
import { NotFoundError } from '../kernel/errors.js';

/** Decodes an id of any accepted form; 404 naming `what` when it decodes to nothing. */
export function idOf(ids: IdCodec, raw: string, kind: string, what: string): number {
  const id = ids.decode(raw, kind);
  if (id === undefined) throw new NotFoundError(what);
  return id;
}

/**
 * A row of the viewer's company from `table` by any id form (`columns` of
 * it); 404 naming `what` for anything else, another company's included.
 * `lock`: locked until the unit of work ends (a change read, then written).
 */
export async function ownedRow<T>(
  ctx: RequestContext,
  ids: IdCodec,
  query: { table: string; columns: string; kind: string; what: string; lock?: boolean },
  raw: string,
): Promise<T> {
  const id = idOf(ids, raw, query.kind, query.what);
  const [row] = await ctx.sql<T>(
    `SELECT ${query.columns} FROM ${query.table} WHERE id = $1 AND company_id = $2${query.lock ? ' FOR UPDATE' : ''}`,
    [id, await ctx.companyId()],
  );
  if (!row) throw new NotFoundError(query.what);
  return row;
}
