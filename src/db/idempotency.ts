import { createHash } from 'node:crypto';
import type { RequestContext } from '../context/request-context.js';
import { ConflictError, HttpError, UnprocessableError } from '../kernel/errors.js';

// Idempotency keys (Stripe's Idempotency-Key): a write sent again with the
// same key gets the first answer back instead of being done twice. The key,
// a fingerprint of the request and the answer are kept per company for 24
// hours, written in the transaction of the write itself: the answer is made
// inside it and stored before it commits, so a process killed between the
// commit and the answer leaves a stored answer for the retry, never a write
// without one. Only answers that committed are kept: a write that failed
// rolled back everything, so a retry runs it again.

export const IDEMPOTENCY_TTL_HOURS = 24;
/** 1 to 255 visible ASCII characters: a UUID, a ULID, or a key of the integrator's own. */
const KEY_FORM = /^[\x21-\x7e]{1,255}$/;

export interface Answer {
  status: number;
  /** The JSON body, as sent. */
  body: string;
}

/** The header's value checked: 400 unless it is 1 to 255 visible ASCII characters. */
export function checkKey(key: string): string {
  if (!KEY_FORM.test(key))
    throw new HttpError(
      400,
      'The Idempotency-Key header must be 1 to 255 visible ASCII characters (no spaces), such as a UUID.',
    );
  return key;
}

/** What makes two requests the same one: the method, the path and query, and the body (as parsed JSON). */
export function fingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${JSON.stringify(body ?? null)}`)
    .digest('base64url');
}

/**
 * Runs `write` once per company and key: in one transaction, the key is
 * locked (409 while another request holds it), the stored answer returned
 * (422 when the key came with another request), or the write made and its
 * answer stored before the commit. `replayed` tells which.
 */
export async function once(
  ctx: RequestContext,
  key: string,
  print: string,
  write: (uow: RequestContext) => Promise<Answer>,
): Promise<Answer & { replayed: boolean }> {
  const company = await ctx.companyId();
  return ctx.unitOfWork(async (uow) => {
    const [{ locked }] = await uow.sql<{ locked: boolean }>(
      'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked',
      [`idempotency:${company}:${key}`],
    );
    if (!locked)
      throw new ConflictError('A request with this Idempotency-Key is still in progress. Retry once it has finished.');
    const [kept] = await uow.sql<{ fingerprint: string; status: number; body: string }>(
      `SELECT fingerprint, status, body FROM idempotency_keys WHERE company_id = $1 AND key = $2 AND ` +
        `created_at > now() - interval '${IDEMPOTENCY_TTL_HOURS} hours'`,
      [company, key],
    );
    if (kept && kept.fingerprint !== print)
      throw new UnprocessableError(
        'This Idempotency-Key was already used with another request. Use a new key for a new request.',
      );
    if (kept) return { status: kept.status, body: kept.body, replayed: true };
    const answer = await write(uow);
    // An expired key of the same name is replaced.
    await uow.sql(
      `INSERT INTO idempotency_keys (company_id, key, fingerprint, status, body, created_at) VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (company_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
         body = excluded.body, created_at = excluded.created_at`,
      [company, key, print, answer.status, answer.body],
    );
    return { ...answer, replayed: false };
  });
}

/** Deletes the keys older than the 24 hours they are kept for. */
export async function purgeIdempotencyKeys(ctx: RequestContext): Promise<number> {
  const rows = await ctx.sql(
    `DELETE FROM idempotency_keys WHERE created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours' RETURNING 1`,
  );
  return rows.length;
}
