import type { RateWindow } from '../config/config.js';
import type { RequestContext } from '../context/request-context.js';
import { RateLimitedError } from '../kernel/errors.js';

// Fixed-window counters in PostgreSQL, shared by every API process. Each hit
// is reserved atomically (one upsert) and committed on its own, before the
// work it guards runs and whatever becomes of that work, so concurrent
// requests cannot all slip under the limit and a rolled-back operation still
// counts.

const HIT = `
INSERT INTO login_attempts (key, window_start, count) VALUES (?, now(), 1)
ON CONFLICT (key) DO UPDATE SET
  count = CASE WHEN login_attempts.window_start <= now() - make_interval(secs => ?) THEN 1 ELSE login_attempts.count + 1 END,
  window_start = CASE WHEN login_attempts.window_start <= now() - make_interval(secs => ?) THEN now() ELSE login_attempts.window_start END
RETURNING count, ceil(extract(epoch from (window_start + make_interval(secs => ?) - now())))::int AS retry_after`;

interface Counter {
  count: number;
  retry_after: number;
}

export class RateLimiter {
  /** Reserves one hit on `key`; 429 with Retry-After when the window already holds `max`. */
  async hit(ctx: RequestContext, key: string, { max, windowSeconds }: RateWindow): Promise<void> {
    const [row] = await ctx.committed<Counter>(HIT, [key, windowSeconds, windowSeconds, windowSeconds]);
    if (row.count > max) throw new RateLimitedError(Math.max(1, row.retry_after));
  }

  /** Forgets the hits on `key` (a success that clears earlier failures). */
  async reset(ctx: RequestContext, key: string): Promise<void> {
    await ctx.committed('DELETE FROM login_attempts WHERE key = ?', [key]);
  }
}
