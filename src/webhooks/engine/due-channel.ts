import { TURN } from '../../db/notifier.js';
import type { RequestContext } from '../../context/request-context.js';

/**
 * The PostgreSQL channel that wakes the delivery pumps (pump.ts): notified once a commit wrote due deliveries
 * (outbox.ts, DueSignal below) and by a recorded result that freed a slot of an endpoint whose due work it held back
 * (settle.ts).
 */
export const DUE_CHANNEL = 'webhook_due';

/**
 * By default a process's writers wake the pumps at most once per this many milliseconds, and a pump claims a stream
 * at most once per twice as long (pump.ts), so two pumps answering in turns claim once per window, as when every
 * commit woke one (docs/adr/0106-a-stream-claimed-every-20-ms.md). WEBHOOK_STREAM_WINDOW sets it; 0 wakes the pumps
 * at every commit (docs/adr/0109-the-stream-window-a-setting.md).
 */
export const WAKE_SPACING_MS = 20;

/**
 * Wakes the pumps once a unit of work that wrote due deliveries commits: a
 * NOTIFY after the commit, by the process's notifier, on a connection of its
 * own and out of the answer's way (RequestContext.notifyAfterCommit,
 * db/notifier.ts; docs/adr/0062, 0098). A wake-up lost to a crash between the
 * commit and the NOTIFY costs the pumps' poll interval, never a delivery. Each
 * wake-up takes a turn: the notifier merges those asked for meanwhile, sends
 * at most one per WAKE_SPACING_MS, and numbers each, so the pumps answer them
 * in turns (wake-targets.ts; docs/adr/0100).
 */
export class DueSignal {
  ring(ctx: RequestContext): void {
    ctx.notifyAfterCommit(DUE_CHANNEL, TURN);
  }
}
