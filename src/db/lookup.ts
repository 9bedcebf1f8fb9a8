import type { EntityName, FilterQuery } from '@mikro-orm/core';
import type { RequestContext } from '../context.js';
import type { IdCodec } from '../ids.js';
import { NotFoundError } from '../errors.js';

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
