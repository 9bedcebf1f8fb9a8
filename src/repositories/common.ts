import { type EntityClass, type FilterQuery, type FindOneOptions, LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { idOf } from '../db/lookup.js';
import type { PageWindow } from '../db/reads.js';
import type { IdCodec } from '../kernel/ids.js';
import { NotFoundError } from '../kernel/errors.js';

// What every repository does alike: find a company's entity by an id the caller gave, and read a page.

/**
 * An entity of the caller's company by any id form (`kind` names it in the id codec); 404 naming `what` for
 * anything else, another company's included. `lock`: the row is locked until the unit of work ends.
 */
export async function ownedEntity<T extends { id: number; company: unknown }>(
  ctx: RequestContext,
  ids: IdCodec,
  entity: EntityClass<T>,
  of: { kind: string; what: string; lock?: boolean },
  raw: string,
): Promise<T> {
  const id = idOf(ids, raw, of.kind, of.what);
  const where = { id, company: await ctx.companyId() } as FilterQuery<T>;
  const options: FindOneOptions<T> = of.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {};
  const found = await ctx.em.findOne(entity, where, options);
  if (!found) throw new NotFoundError(of.what);
  return found;
}

/** The limit and offset of a page, as `find` and `findAndCount` take them. */
export const pageOptions = (window: PageWindow) => ({ limit: window.perPage, offset: window.offset });
