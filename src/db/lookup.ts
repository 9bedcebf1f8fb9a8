import type { EntityName, FilterQuery, FindOptions } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../context/request-context.js';
import type { IdCodec } from '../kernel/ids.js';
import { NotFoundError } from '../kernel/errors.js';
import { cursors } from './cursors.js';
import { pageOf, type Page, type PageWindow } from './reads.js';

/** Decodes an id of any accepted form; 404 naming `what` when it decodes to nothing. */
export function idOf(ids: IdCodec, raw: string, kind: string, what: string): number {
  const id = ids.decode(raw, kind);
  if (id === undefined) throw new NotFoundError(what);
  return id;
}

/** A record of the viewer's company by any id form; 404 for anything else, another company's included. */
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

/** The newest records first: created_at, then id, both descending. */
export const NEWEST_FIRST = { createdAt: 'desc', id: 'desc' } as const;

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

/**
 * One page of entities of a list that can grow to millions of rows: the
 * page's ids and the total in one round trip, both from the list's index (the
 * ids ordered and offset: a deferred join), then only those rows loaded as
 * entities, in the list's order. `where` is ours, never a client's text; the
 * values go in `params` ($1, $2...).
 */
export async function findPageByKeys<T extends { id: number }>(
  ctx: RequestContext,
  entity: EntityName<T>,
  keys: { from: string; where: string; params: unknown[] },
  window: PageWindow,
  options: Pick<FindOptions<T, any>, 'populate'> = {},
): Promise<Page<T>> {
  const n = keys.params.length;
  // Newest first (created_at, then id); after a cursor, the rows past it in that order instead of an offset.
  const after = window.after ? ` AND (created_at, id) < ($${n + 3}::timestamptz, $${n + 4})` : '';
  const [{ total, page }] = await ctx.sql<{ total: number; page: string[] }>(
    `SELECT (SELECT count(*)::int FROM ${keys.from} WHERE ${keys.where}) AS total,
            ARRAY(SELECT id || ' ' || created_at::text FROM ${keys.from} WHERE ${keys.where}${after} ORDER BY created_at
              DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}) AS page`,
    [
      ...keys.params,
      window.perPage,
      window.after ? 0 : window.offset,
      ...(window.after ? [window.after.key, window.after.id] : []),
    ],
  );
  const ids = page.map((entry) => Number(entry.slice(0, entry.indexOf(' '))));
  const found =
    ids.length > 0
      ? await ctx.em.find(entity, { id: { $in: ids } } as unknown as FilterQuery<T>, options as FindOptions<T, any>)
      : [];
  const byId = new Map(found.map((record) => [record.id, record]));
  const next = window.offset + ids.length;
  const last = page.at(-1);
  return {
    ...pageOf(
      ids.flatMap((id) => byId.get(id) ?? []),
      total,
      window,
    ),
    nextCursor:
      last && next < total
        ? cursors.encode({ key: last.slice(last.indexOf(' ') + 1), id: ids.at(-1)!, position: next })
        : null,
  };
}
