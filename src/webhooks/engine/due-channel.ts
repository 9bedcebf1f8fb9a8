import { randomInt } from 'node:crypto';
import type { RequestContext } from '../../context/request-context.js';

/**
 * The PostgreSQL channel that wakes the delivery pumps (pump.ts): notified once a commit wrote due deliveries
 * (outbox.ts, DueSignal below) and by a recorded result that freed a slot of an endpoint with due work waiting (settle.ts).
 */
export const DUE_CHANNEL = 'webhook_due';

const WAKE = `SELECT pg_notify('${DUE_CHANNEL}', $1)`;

/**
 * Wakes the pumps after a commit, in a statement of its own (docs/adr/0062).
 * A NOTIFY inside the writing transaction holds PostgreSQL's one lock on the
 * notification queue from its commit's start until its WAL is flushed, so
 * every such commit waits for the one before it and none share a flush: at a
 * few hundred writes a second the API's answers queued behind the disk. A
 * NOTIFY alone writes no WAL, and while one is on its way the next is folded
 * into one more after it: at most one statement in flight per process. A
 * wake-up lost to a crash between the commit and the NOTIFY costs the pumps'
 * poll interval, never a delivery. Each wake-up names the next number of
 * this process's count, so the pumps answer them in turns (wake-targets.ts).
 */
export class DueSignal {
  private sending = false;
  private again?: RequestContext;
  /** Starts anywhere, so that processes started together do not aim their first wake-ups alike. */
  private count = randomInt(1_000_000);

  /** Sends the wake-up through ctx's statements that commit on their own; one more follows one in flight. */
  ring(ctx: RequestContext): void {
    if (this.sending) {
      this.again = ctx;
      return;
    }
    this.sending = true;
    ctx
      .sql(WAKE, [String(this.count++ % 1_000_000_000)], { committed: true })
      // Nothing to do on failure: the pumps poll (pump.ts), and the next commit rings again.
      .catch(() => undefined)
      .finally(() => {
        this.sending = false;
        const next = this.again;
        this.again = undefined;
        if (next) this.ring(next);
      });
  }
}
