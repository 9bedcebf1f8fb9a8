import pg from 'pg';
import type { RequestContext } from '../context/request-context.js';
import { LIMITS, Rules, message } from '../kernel/validation.js';
import { ValidationError } from '../kernel/errors.js';
import { cursors, type Cursor } from './cursors.js';

// Plain reads (`RequestContext.sql`): the pool they go through, the text of
// their dates read as Dates, and their pages in the spec's envelope.

/**
 * A pool of the statements of `RequestContext.sql` and of the EntityManager's forks: timestamps read as Dates by pg's
 * own parser (postgres-date), civil dates and intervals as PostgreSQL's text, with no query builder in between.
 * `idleMs`: how long a connection may sit idle before it is closed (DATABASE_IDLE_TIMEOUT; 0: never); `options`:
 * settings of its connections (the delivery engine's use generic plans).
 */
export function readingPool(databaseUrl: string, max = 10, idleMs = 600_000, options?: string): pg.Pool {
  const types = new pg.TypeOverrides();
  for (const oid of [1082, 1186]) types.setTypeParser(oid, (text: string) => text); // date, interval
  // Pipelining: a unit of work writes its BEGIN with its first statement, and its last statements with its COMMIT
  // (context/transaction.ts).
  return new pg.Pool({ connectionString: databaseUrl, max, idleTimeoutMillis: idleMs, types, options, pipeline: true });
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

// The spec's paginated envelope: records plus total/current_page/per_page/
// last_page/from/to. per_page above the maximum is clamped, not refused.

export interface PageArgs {
  page?: number | null;
  perPage?: number | null;
  /** A list's `nextCursor`: the page after the one that gave it, found through the index instead of by position. */
  after?: string | null;
}

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
    if (args.page !== undefined && args.page !== null)
      throw ValidationError.field('after', 'Give either page or after, not both.');
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
export async function readPage<T>(
  ctx: RequestContext,
  query: ListQuery,
  window: PageWindow,
): Promise<{ rows: T[]; total: number }> {
  const n = query.params.length;
  const rows = await ctx.sql<T & { total_rows: number }>(
    `SELECT ${query.select}, count(*) OVER ()::int AS total_rows FROM ${query.from} WHERE ${query.where} ` +
      `ORDER BY ${query.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...query.params, window.perPage, window.offset],
  );
  const total = rows[0]?.total_rows ?? (window.offset > 0 ? await countOf(ctx, query) : 0);
  // Rows keep their total_rows column: callers make records of the columns they name, so a copy of each row without it would be work for nothing.
  return { rows, total };
}

/**
 * One page of plain rows and the total as two statements, the count first: for the delivery log and the event
 * store, whose pages are read newest first by id and whose counts a window function would make read every row.
 */
export async function readCountedPage<T>(
  ctx: RequestContext,
  query: ListQuery,
  window: PageWindow,
): Promise<{ rows: T[]; total: number }> {
  const total = await countOf(ctx, query);
  const rows = await ctx.sql<T>(
    `SELECT ${query.select} FROM ${query.from} WHERE ${query.where} ORDER BY ${query.orderBy} ` +
      `LIMIT ${window.perPage} OFFSET ${window.offset}`,
    query.params,
  );
  return { rows, total };
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
  const after = window.after
    ? ` AND (${query.keys.sort}, ${query.keys.key}) < ($${n + 3}::timestamptz, $${n + 4})`
    : '';
  // One row with the total even when the page is empty; the page's rows keep their order by position.
  const rows = await ctx.sql<T & { total_rows: number; page_position: number | null; cursor_key: string }>(
    `SELECT t.total_rows, r.* FROM (SELECT count(*)::int AS total_rows FROM ${query.keys.from} WHERE ${query.keys.where}) t
     LEFT JOIN LATERAL (
       SELECT ${query.select}, ${query.sort}::text AS cursor_key, row_number() OVER (ORDER BY ${query.orderBy}) AS page_position
       FROM (SELECT ${query.keys.key} AS page_key FROM ${query.keys.from} WHERE ${query.keys.where}${after}
         ORDER BY ${query.keys.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}) page
       JOIN ${query.table} ON ${query.key} = page.page_key ${query.joins ?? ''}
     ) r ON true
     ORDER BY r.page_position`,
    [
      ...query.params,
      window.perPage,
      window.after ? 0 : window.offset,
      ...(window.after ? [window.after.key, window.after.id] : []),
    ],
  );
  const page = rows.filter((row) => row.page_position !== null);
  const total = rows[0]?.total_rows ?? 0;
  const last = page.at(-1) as (T & { cursor_key: string; id: number }) | undefined;
  const next = window.offset + page.length;
  return {
    rows: page,
    total,
    nextCursor: last && next < total ? cursors.encode({ key: last.cursor_key, id: last.id, position: next }) : null,
  };
}

/**
 * One page of a table's rows, newest first (created_at, then id), read as
 * readDeepPage reads (through the index, with a cursor): `columns` of the
 * table, `where` over its own columns.
 */
export async function readNewestPage<T>(
  ctx: RequestContext,
  query: { table: string; columns: string; where: string; params: unknown[] },
  window: PageWindow,
): Promise<Page<T>> {
  const page = await readDeepPage<T>(
    ctx,
    {
      select: query.columns
        .split(',')
        .map((column) => `r.${column.trim()}`)
        .join(', '),
      table: `${query.table} r`,
      key: 'r.id',
      orderBy: 'r.created_at DESC, r.id DESC',
      keys: {
        key: 'id',
        sort: 'created_at',
        from: query.table,
        where: query.where,
        orderBy: 'created_at DESC, id DESC',
      },
      sort: 'r.created_at',
      params: query.params,
    },
    window,
  );
  return { ...pageOf(page.rows, page.total, window), nextCursor: page.nextCursor };
}

async function countOf(ctx: RequestContext, query: Pick<ListQuery, 'from' | 'where' | 'params'>): Promise<number> {
  return (
    await ctx.sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${query.from} WHERE ${query.where}`, query.params)
  )[0].n;
}

/**
 * The LIKE pattern of a search: at most LIMITS.searchChars characters (else
 * 422), wildcards escaped so a search for "50%" matches the text "50%".
 */
export function likePattern(search: string, field = 'search'): string {
  new Rules().maxChars(field, search, LIMITS.searchChars).check();
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
