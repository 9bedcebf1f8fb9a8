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

/** The table of each id kind a route's path takes, and the column its id is in (every one of them company-scoped). */
const OWNED: Record<string, { table: string; column: string }> = {
  agent: { table: 'agents', column: 'id' },
  agent_tool: { table: 'agent_tools', column: 'id' },
  call: { table: 'calls', column: 'id' },
  campaign: { table: 'campaigns', column: 'id' },
  decision_endpoint: { table: 'decision_endpoints', column: 'id' },
  phone_number: { table: 'phone_numbers', column: 'id' },
  pipeline: { table: 'pipelines', column: 'id' },
  role: { table: 'roles', column: 'id' },
  spam_protected_number: { table: 'spam_protected_numbers', column: 'id' },
  webhook: { table: 'webhooks', column: 'id' },
  workflow: { table: 'workflows', column: 'id' },
  workflow_builder: { table: 'workflows', column: 'builder_id' },
};

/**
 * Whether the viewer's company has the record of `kind` with this id;
 * undefined for a kind this table does not know. A route that refuses a body
 * asks it first, so a missing or foreign id is 404 whatever the body.
 */
export async function recordOwned(ctx: RequestContext, kind: string, id: number): Promise<boolean | undefined> {
  const owned = OWNED[kind];
  if (!owned) return undefined;
  const rows = await ctx.sql(`SELECT 1 FROM ${owned.table} WHERE ${owned.column} = $1 AND company_id = $2`, [
    id,
    await ctx.companyId(),
  ]);
  return rows.length > 0;
}
