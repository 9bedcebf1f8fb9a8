import type { RateWindow } from '../config/config.js';
import type { RequestContext } from '../context/request-context.js';
import type { RateLimiter } from './rate-limiter.js';

// Sign-in limits, per IP and per email. Counted per login call, so attempts
// packed into one GraphQL request (aliases, batches) count one by one. The
// email's attempt is reserved before the password is checked: of many
// concurrent guesses only `max` are ever evaluated.

export class LoginLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly limits: { perIp: RateWindow; perEmail: RateWindow },
  ) {}

  /** Reserves an attempt from this address and one for this email; 429 past either limit. */
  async reserve(ctx: RequestContext, email: string): Promise<void> {
    await this.limiter.hit(`ip:${ctx.ip}`, this.limits.perIp);
    await this.limiter.hit(`email:${email}`, this.limits.perEmail);
  }

  /** A correct password clears the email's failures. */
  async succeeded(email: string): Promise<void> {
    await this.limiter.reset(`email:${email}`, this.limits.perEmail);
  }
}
