import type { IdCodec } from '../kernel/ids.js';
import { NotFoundError } from '../kernel/errors.js';

/** Decodes an id of any accepted form; 404 naming `what` when it decodes to nothing. */
export function idOf(ids: IdCodec, raw: string, kind: string, what: string): number {
  const id = ids.decode(raw, kind);
  if (id === undefined) throw new NotFoundError(what);
  return id;
}
