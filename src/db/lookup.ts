import type { EntityName, FilterQuery, FindOptions } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../context/request-context.js';
import type { IdCodec } from '../kernel/ids.js';
import { NotFoundError } from '../kernel/errors.js';
import { pageOf, type Page, type PageWindow } from './reads.js';

/** Decodes an id of any accepted form; 404 naming `what` when it decodes to nothing. */
export function idOf(ids: IdCodec, raw: string, kind: string, what: string): number {
  const id = ids.decode(raw, kind);
  if (id === undefined) throw new NotFoundError(what);
  return id;
}

/**
 * A row of the viewer's company from `table` by any id form (`columns` of
 * it); 404 naming `what` for anything else, another company's included.
 */
export async function ownedRow<T>(
  ctx: RequestContext,
  ids: IdCodec,
  query: { table: string; columns: string; kind: string; what: string },
  raw: string,
): Promise<T> {
  const id = idOf(ids, raw, query.kind, query.what);
  const [row] = await ctx.sql<T>(`SELECT ${query.columns} FROM ${query.table} WHERE id = $1 AND company_id = $2`, [
    id,
    await ctx.companyId(),
  ]);
  if (!row) throw new NotFoundError(query.what);
  return row;
}

/** A record of the viewer's company by any id form, through the ORM; 404 for anything else, another company's included. */
export async function findOwned<T extends object>(
  ctx: RequestContext,
  ids: IdCodec,
  entity: EntityName<T>,
  raw: string,
  kind: string,
  what: string,
): Promise<T> {
  const id = idOf(ids, raw, kind, what);
  const found = await ctx.em.findOne(entity, { id, company: await ctx.companyId() } as FilterQuery<T>);
  if (!found) throw new NotFoundError(what);
  return found;
}

/** One page of an entity's rows and the total, in one place for every list. */
export async function findPage<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  window: PageWindow,
  options: Omit<FindOptions<T, any>, 'limit' | 'offset'>,
): Promise<Page<T>> {
  const [records, total] = await em.findAndCount(entity, where, {
    ...options,
    limit: window.perPage,
    offset: window.offset,
  } as FindOptions<T, any>);
  return pageOf(records, total, window);
}
