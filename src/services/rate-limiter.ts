import type { RateWindow } from '../config/config.js';
import { RateLimitedError } from '../kernel/errors.js';
import type { SharedBudgets } from '../limits/budgets.js';

// The limits of sign-ins and of provider account changes, on the same shared budgets as the API's rate limits
// (src/limits/budgets.ts): a fixed window per key in PostgreSQL, shared by every API process. A quota of 50
// or less is reserved point by point, so each hit is one statement, committed on its own before the work it guards
// runs and whatever becomes of that work: concurrent requests cannot all slip under the limit, and a rolled-back
// operation still counts.

export class RateLimiter {
  constructor(private readonly budgets: SharedBudgets) {}

  /** Reserves one hit on `key`; 429 with Retry-After when the window already holds `max`. */
  async hit(key: string, window: RateWindow): Promise<void> {
    const spent = await this.budgets.spend(`limit:${key}`, window, 1);
    if (!spent.allowed) throw new RateLimitedError(spent.resetSeconds);
  }

  /** Forgets the hits on `key` (a success that clears earlier failures). */
  async reset(key: string, window: RateWindow): Promise<void> {
    await this.budgets.reset(`limit:${key}`, window);
  }
}
