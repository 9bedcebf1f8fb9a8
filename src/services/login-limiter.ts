import type { EntityManager } from '@mikro-orm/postgresql';
import type { RateWindow } from '../config.js';
import { RateLimitedError } from '../errors.js';

// Fixed-window counters in PostgreSQL, so every API process shares them.
// Counted per login call, so attempts packed into one GraphQL request
// (aliases, batches) count one by one.

const HIT = `
INSERT INTO login_attempts (key, window_start, count) VALUES (?, now(), 1)
ON CONFLICT (key) DO UPDATE SET
  count = CASE WHEN login_attempts.window_start <= now() - make_interval(secs => ?) THEN 1 ELSE login_attempts.count + 1 END,
  window_start = CASE WHEN login_attempts.window_start <= now() - make_interval(secs => ?) THEN now() ELSE login_attempts.window_start END
RETURNING count, ceil(extract(epoch from (window_start + make_interval(secs => ?) - now())))::int AS retry_after`;

const PEEK = `
SELECT count, ceil(extract(epoch from (window_start + make_interval(secs => ?) - now())))::int AS retry_after
FROM login_attempts WHERE key = ? AND window_start > now() - make_interval(secs => ?)`;

interface Counter {
  count: number;
  retry_after: number;
}

export class LoginLimiter {
  constructor(private readonly limits: { perIp: RateWindow; perEmail: RateWindow }) {}

  /** Counts an attempt from this address; 429 past the limit. */
  async attemptFrom(em: EntityManager, ip: string): Promise<void> {
    const { windowSeconds, max } = this.limits.perIp;
    const [row] = await em.getConnection().execute<Counter[]>(HIT, [`ip:${ip}`, windowSeconds, windowSeconds, windowSeconds]);
    if (row.count > max) throw new RateLimitedError(Math.max(1, row.retry_after));
  }

  /** 429 when this email already had too many failed attempts. */
  async assertEmailAllowed(em: EntityManager, email: string): Promise<void> {
    const { windowSeconds, max } = this.limits.perEmail;
    const [row] = await em.getConnection().execute<Counter[]>(PEEK, [windowSeconds, `email:${email}`, windowSeconds]);
    if (row && row.count >= max) throw new RateLimitedError(Math.max(1, row.retry_after));
  }

  async failedFor(em: EntityManager, email: string): Promise<void> {
    const { windowSeconds } = this.limits.perEmail;
    await em.getConnection().execute(HIT, [`email:${email}`, windowSeconds, windowSeconds, windowSeconds]);
  }

  async succeededFor(em: EntityManager, email: string): Promise<void> {
    await em.getConnection().execute('DELETE FROM login_attempts WHERE key = ?', [`email:${email}`]);
  }
}
