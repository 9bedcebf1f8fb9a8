import { listen, type Listener } from '../db/listener.js';
import { errorFields, type Logger } from '../observability/logger.js';
import type { WebhookDeliverer } from './deliverer.js';

// The delivery pump of a worker process: it claims due deliveries straight
// from the rows (FOR UPDATE SKIP LOCKED, so several workers share the work
// and never take the same attempt) and sends them, up to `capacity` at once.
// It wakes when a transaction that wrote deliveries commits (PostgreSQL
// NOTIFY, sent by the outbox inside that transaction), when an attempt
// finishes, and every `pollMs` as a safety net. Retries are timed by Agenda
// jobs; the pump takes whatever is due.

export const DUE_CHANNEL = 'webhook_due';
const NUDGE_MS = 5;

export class DeliveryPump {
  private inFlight = 0;
  private wake?: () => void;
  private stopped = false;
  private loop?: Promise<void>;
  private listener?: Listener;
  private readonly idle = new Set<() => void>();
  private lastNudge = 0;
  private nudgeTimer?: NodeJS.Timeout;

  constructor(
    private readonly deliverer: WebhookDeliverer,
    private readonly log: Logger,
    private readonly capacity = 32,
    private readonly pollMs = 1000,
  ) {}

  async start(databaseUrl: string): Promise<void> {
    // When the database goes away (a restart) the listener comes back by itself;
    // meanwhile the pump still polls, so nothing waits longer than a poll interval.
    this.listener = listen(databaseUrl, DUE_CHANNEL, { onNotify: () => this.nudge(), onListening: () => this.kick() }, this.log);
    this.loop = this.run();
  }

  kick(): void {
    this.wake?.();
  }

  /**
   * A commit wrote deliveries. Under a burst of commits, claims are coalesced
   * to one per NUDGE_MS: attempts finishing wake the pump anyway, and a claim
   * per commit would cost more than it finds.
   */
  private nudge(): void {
    if (this.nudgeTimer) return;
    const since = Date.now() - this.lastNudge;
    if (since >= NUDGE_MS) {
      this.lastNudge = Date.now();
      this.kick();
      return;
    }
    this.nudgeTimer = setTimeout(() => {
      this.nudgeTimer = undefined;
      this.lastNudge = Date.now();
      this.kick();
    }, NUDGE_MS - since);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const room = this.capacity - this.inFlight;
      let claimed = 0;
      if (room > 0) {
        try {
          const batch = await this.deliverer.claimDue(room);
          claimed = batch.length;
          for (const delivery of batch) {
            this.inFlight++;
            this.deliverer
              .complete(delivery)
              .catch((error) => this.log.warn('webhook attempt not recorded; the reconciler will close it', { deliveryId: delivery.id, ...errorFields(error) }))
              .finally(() => {
                this.inFlight--;
                if (this.inFlight === 0) for (const resolve of this.idle) resolve();
                this.kick();
              });
          }
        } catch (error) {
          this.log.warn('delivery pump could not claim', errorFields(error));
        }
      }
      if (claimed > 0 && claimed === room) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.pollMs);
        this.wake = () => {
          clearTimeout(timer);
          this.wake = undefined;
          resolve();
        };
      });
    }
  }

  /** Stops claiming, lets the attempts in flight finish and be recorded, then closes the listener. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.nudgeTimer);
    this.kick();
    await this.loop;
    if (this.inFlight > 0) await new Promise<void>((resolve) => this.idle.add(resolve));
    await this.listener?.stop();
  }
}
