import type { RequestContext } from '../context.js';
import type { EntityName, FilterQuery, FindOptions } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LIMITS, Rules, message } from '../validation.js';
import { ValidationError } from '../errors.js';

// The spec's paginated envelope: records plus total/current_page/per_page/
// last_page/from/to. per_page above the maximum is clamped, not refused.

export interface PageArgs {
  page?: number | null;
  perPage?: number | null;
  /** A list's `nextCursor`: the page after the one that gave it, found through the index instead of by position. */
  after?: string | null;
}

/** Where a page ended: the last row's sort key (PostgreSQL's text of it) and id, and the position after it. */
export interface Cursor {
  key: string;
  id: number;
  position: number;
}

/** Cursors are opaque to clients: base64url of the JSON [key, id, position]. */
export const cursors = {
  encode: (cursor: Cursor): string => Buffer.from(JSON.stringify([cursor.key, cursor.id, cursor.position])).toString('base64url'),
  /** The cursor, or a 422 naming `after`. */
  decode(text: string): Cursor {
    try {
      if (text.length <= 200 && /^[A-Za-z0-9_-]+$/.test(text)) {
        const [key, id, position] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
        if (typeof key === 'string' && key.length <= 64 && Number.isSafeInteger(id) && Number.isSafeInteger(position) && (position as number) >= 0) {
          return { key, id: id as number, position: position as number };
        }
      }
    } catch {
      // reported below
    }
    throw ValidationError.field('after', 'The after field is not a cursor this list gave.');
  },
};

export interface PageLimits {
  defaultPerPage: number;
  maxPerPage: number;
}

export interface PageWindow {
  page: number;
  perPage: number;
  offset: number;
  /** Given: rows after it, at its position (no OFFSET). */
  after?: Cursor;
}

export interface PageInfo {
  total: number;
  currentPage: number;
  perPage: number;
  lastPage: number;
  from: number | null;
  to: number | null;
}

export interface Page<T> {
  records: T[];
  pagination: PageInfo;
  /** Lists read through an index: the cursor of the next page, null on the last. */
  nextCursor?: string | null;
}

export const DEFAULT_LIMITS: PageLimits = { defaultPerPage: 15, maxPerPage: 100 };

export function pageWindow(args: PageArgs, limits: PageLimits = DEFAULT_LIMITS): PageWindow {
  const pageBad = args.page !== undefined && args.page !== null && args.page < 1;
  const perPageBad = args.perPage !== undefined && args.perPage !== null && args.perPage < 1;
  // The rules are made only for a bad page: the usual request does no more than the two comparisons.
  if (pageBad || perPageBad) {
    const rules = new Rules();
    if (pageBad) rules.add('page', message.min('page', 1));
    if (perPageBad) rules.add('perPage', message.min('perPage', 1));
    rules.check();
  }
  const perPage = Math.min(args.perPage ?? limits.defaultPerPage, limits.maxPerPage);
  if (args.after !== undefined && args.after !== null) {
    if (args.page !== undefined && args.page !== null) throw ValidationError.field('after', 'Give either page or after, not both.');
    const after = cursors.decode(args.after);
    return { page: Math.floor(after.position / perPage) + 1, perPage, offset: after.position, after };
  }
  const page = args.page ?? 1;
  return { page, perPage, offset: (page - 1) * perPage };
}

export function pageOf<T>(records: T[], total: number, window: PageWindow): Page<T> {
  const from = records.length > 0 ? window.offset + 1 : null;
  return {
    records,
    pagination: {
      total,
      currentPage: window.page,
      perPage: window.perPage,
      lastPage: Math.max(1, Math.ceil(total / window.perPage)),
      from,
      to: from === null ? null : from + records.length - 1,
    },
  };
}

/** A list read as plain rows: `from` and `where` are ours, never a client's text; values go in `params` ($1, $2...). */
export interface ListQuery {
  select: string;
  from: string;
  where: string;
  orderBy: string;
  params: unknown[];
}

/**
 * One page of plain rows and the total in one round trip (`count(*) OVER ()`),
 * for lists that stay small (a company's roles); only a page past the end asks
 * for the count apart.
 */
export async function readPage<T>(ctx: RequestContext, query: ListQuery, window: PageWindow): Promise<{ rows: T[]; total: number }> {
  const n = query.params.length;
  const rows = await ctx.read<T & { total_rows: number }>(
    `SELECT ${query.select}, count(*) OVER ()::int AS total_rows FROM ${query.from} WHERE ${query.where} ORDER BY ${query.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...query.params, window.perPage, window.offset],
  );
  const total = rows[0]?.total_rows ?? (window.offset > 0 ? await countOf(ctx, query) : 0);
  return { rows: rows.map(({ total_rows: _total, ...row }) => row as unknown as T), total };
}

/**
 * One page of a list that can grow to millions of rows, and its total, in one
 * round trip. The page's keys are found from an index alone (the `keys`
 * query, ordered and offset: a deferred join), then only those rows are read
 * in full, so a deep page costs a walk of the index's leaf entries, not the
 * reading of every row before it; the total is counted from the same index.
 */
export async function readDeepPage<T>(
  ctx: RequestContext,
  query: {
    /** The columns of a row, read from `table` (with its alias) and `joins`. */
    select: string;
    table: string;
    joins?: string;
    /** The row's key column in `table`, matched to the keys found. */
    key: string;
    orderBy: string;
    /** The list's rows as the index sees them: their key, filter and order (both descending: `sort`, then `key`). */
    keys: { key: string; sort: string; from: string; where: string; orderBy: string };
    /** The sort column as `table` names it, for the cursor. */
    sort: string;
    params: unknown[];
  },
  window: PageWindow,
): Promise<{ rows: T[]; total: number; nextCursor: string | null }> {
  const n = query.params.length;
  // After a cursor: the rows past it in the index's order, instead of an offset.
  const after = window.after ? ` AND (${query.keys.sort}, ${query.keys.key}) < ($${n + 3}::timestamptz, $${n + 4})` : '';
  // One row with the total even when the page is empty; the page's rows keep their order by position.
  const rows = await ctx.read<T & { total_rows: number; page_position: number | null; cursor_key: string }>(
    `SELECT t.total_rows, r.* FROM (SELECT count(*)::int AS total_rows FROM ${query.keys.from} WHERE ${query.keys.where}) t
     LEFT JOIN LATERAL (
       SELECT ${query.select}, ${query.sort}::text AS cursor_key, row_number() OVER (ORDER BY ${query.orderBy}) AS page_position
       FROM (SELECT ${query.keys.key} AS page_key FROM ${query.keys.from} WHERE ${query.keys.where}${after} ORDER BY ${query.keys.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}) page
       JOIN ${query.table} ON ${query.key} = page.page_key ${query.joins ?? ''}
     ) r ON true
     ORDER BY r.page_position`,
    [...query.params, window.perPage, window.after ? 0 : window.offset, ...(window.after ? [window.after.key, window.after.id] : [])],
  );
  const page = rows.filter((row) => row.page_position !== null);
  const total = rows[0]?.total_rows ?? 0;
  const last = page.at(-1) as (T & { cursor_key: string; id: number }) | undefined;
  const next = window.offset + page.length;
  return { rows: page, total, nextCursor: last && next < total ? cursors.encode({ key: last.cursor_key, id: last.id, position: next }) : null };
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
  const [{ total, page }] = await ctx.read<{ total: number; page: string[] }>(
    `SELECT (SELECT count(*)::int FROM ${keys.from} WHERE ${keys.where}) AS total,
            ARRAY(SELECT id || ' ' || created_at::text FROM ${keys.from} WHERE ${keys.where}${after} ORDER BY created_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}) AS page`,
    [...keys.params, window.perPage, window.after ? 0 : window.offset, ...(window.after ? [window.after.key, window.after.id] : [])],
  );
  const ids = page.map((entry) => Number(entry.slice(0, entry.indexOf(' '))));
  const found = ids.length > 0 ? await ctx.em.find(entity, { id: { $in: ids } } as unknown as FilterQuery<T>, options as FindOptions<T, any>) : [];
  const byId = new Map(found.map((record) => [record.id, record]));
  const next = window.offset + ids.length;
  const last = page.at(-1);
  return {
    ...pageOf(ids.flatMap((id) => byId.get(id) ?? []), total, window),
    nextCursor: last && next < total ? cursors.encode({ key: last.slice(last.indexOf(' ') + 1), id: ids.at(-1)!, position: next }) : null,
  };
}

async function countOf(ctx: RequestContext, query: Pick<ListQuery, 'from' | 'where' | 'params'>): Promise<number> {
  return (await ctx.read<{ n: number }>(`SELECT count(*)::int AS n FROM ${query.from} WHERE ${query.where}`, query.params))[0].n;
}

/**
 * The LIKE pattern of a search: at most LIMITS.searchChars characters (else
 * 422), wildcards escaped so a search for "50%" matches the text "50%".
 */
export function likePattern(search: string, field = 'search'): string {
  new Rules().maxChars(field, search, LIMITS.searchChars).check();
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
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
  const [records, total] = await em.findAndCount(entity, where, { ...options, limit: window.perPage, offset: window.offset } as FindOptions<T, any>);
  return pageOf(records, total, window);
}
