import { randomInt } from 'node:crypto';
import type { RequestContext } from '../../context/request-context.js';

/**
 * The PostgreSQL channel that wakes the delivery pumps (pump.ts): notified once a commit wrote due deliveries
 * (outbox.ts, DueSignal below) and by a recorded result that freed a slot of an endpoint whose due work it held back
 * (settle.ts).
 */
export const DUE_CHANNEL = 'webhook_due';

/**
 * Wakes the pumps once a unit of work that wrote due deliveries commits: a
 * NOTIFY after the commit, by the process's notifier, on a connection of its
 * own and out of the answer's way (RequestContext.notifyAfterCommit,
 * db/notifier.ts; docs/adr/0062, 0098). Wake-ups asked for while one is on its
 * way merge into one: a pump claims all that is due. A wake-up lost to a crash
 * between the commit and the NOTIFY costs the pumps' poll interval, never a
 * delivery. Each wake-up names the next number of this process's count, so
 * the pumps answer them in turns (wake-targets.ts).
 */
export class DueSignal {
  /** Starts anywhere, so that processes started together do not aim their first wake-ups alike. */
  private count = randomInt(1_000_000);

  ring(ctx: RequestContext): void {
    ctx.notifyAfterCommit(DUE_CHANNEL, String(this.count++ % 1_000_000_000));
  }
}
