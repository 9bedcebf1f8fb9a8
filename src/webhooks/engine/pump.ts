import { listen, type Listener } from '../../db/listener.js';
import { errorFields, type Logger } from '../../observability/logger.js';
import type { WebhookDeliverer } from './deliverer.js';
import { closeConnections } from './http-send.js';
import { closeBrokers } from './brokers/index.js';
import { DUE_CHANNEL, WAKE_SPACING_MS } from './due-channel.js';
import { PUMP_APPLICATION, ROSTER, ROSTER_EVERY_MS, WakeTargets } from './wake-targets.js';

// The delivery pump of a worker process: it claims due deliveries straight
// from the rows (claim.ts: several workers share the work and never take the
// same attempt) and sends them, up to `sockets` at once: an attempt waiting
// on a slow receiver holds one socket of this bound and one slot of its own
// endpoint, nothing that other endpoints need. It wakes by one path per kind
// of work: a commit that wrote deliveries (PostgreSQL NOTIFY, sent once that
// transaction committed: due-channel.ts), a retry's Agenda job at its due time, a
// recorded result that freed a slot of an endpoint whose due work it held back (a
// NOTIFY sent by the settle, which reaches the pumps of every worker, not only
// the one that made the attempt: settle.ts), and an attempt finishing while
// this pump was at its bound of sockets; a poll every `pollMs` is the fallback
// behind them all. Of the wake-ups by NOTIFY, each pump answers its share
// (wake-targets.ts): one claim per wake-up, not one per worker. A stream of
// new deliveries is claimed at most once per two stream windows (a writer's wake-up
// after a quiet spell at once); work a result held back and a freed socket
// wait NUDGE_MS at most (docs/adr/0094-claims-of-a-stream-coalesced.md; the window since
// docs/adr/0106-a-stream-claimed-every-20-ms.md).

const NUDGE_MS = 5;
/** Attempts claimed in one transaction at most. */
const CLAIM_BATCH = 200;

export class DeliveryPump {
  private inFlight = 0;
  private wake?: () => void;
  private woken = false;
  private stopped = false;
  private loop?: Promise<void>;
  private listener?: Listener;
  private readonly idle = new Set<() => void>();
  private lastNudge = 0;
  /** When the pending nudge's claim is due. */
  private nudgeAt = 0;
  private nudgeTimer?: NodeJS.Timeout;
  private readonly targets = new WakeTargets();
  private rosterTimer?: NodeJS.Timeout;

  constructor(
    private readonly deliverer: WebhookDeliverer,
    private readonly log: Logger,
    private readonly sockets = 1000,
    /**
     * The deployment's window for a stream of new deliveries (WEBHOOK_STREAM_WINDOW; due-channel.ts): the writers
     * wake the pumps at most once per window, and a pump claims a stream at most once per two (two pumps in turns).
     */
    private readonly streamWindowMs = WAKE_SPACING_MS,
    private readonly pollMs = 1000,
  ) {}

  async start(databaseUrl: string): Promise<void> {
    // When the database goes away (a restart) the listener comes back by itself;
    // meanwhile the pump still polls, so nothing waits longer than a poll interval.
    this.listener = listen(
      databaseUrl,
      DUE_CHANNEL,
      {
        // A result's wake-up names its endpoint (`e` and its id): work it held back. A writer's names its count.
        onNotify: (payload) =>
          this.targets.mine(payload) && this.nudge(payload?.startsWith('e') ? NUDGE_MS : 2 * this.streamWindowMs),
        onListening: () => {
          this.kick();
          void this.readRoster();
        },
        onLost: () => this.targets.reset(),
      },
      this.log,
      PUMP_APPLICATION,
    );
    this.rosterTimer = setInterval(() => void this.readRoster(), ROSTER_EVERY_MS);
    this.loop = this.run();
  }

  /** Reads which pumps share the wake-ups; a failed read leaves the last list (a lost connection resets it). */
  private async readRoster(): Promise<void> {
    const read = await this.listener?.query<{ pid: number }>(ROSTER).catch(() => undefined);
    if (read)
      this.targets.update(
        read.rows.map((row) => row.pid),
        read.pid,
      );
  }

  /** Claim again now; a wake-up that comes during a claim is kept, so the claim after it runs at once. */
  kick(): void {
    this.woken = true;
    this.wake?.();
  }

  /**
   * Deliveries became due, or a socket came free: a claim `windowMs` after the last one that a nudge made, or at once
   * if that is past. Under a burst, claims are coalesced: a claim per commit or per finished attempt would cost more
   * than it finds. A nudge of a shorter window brings a pending one forward.
   */
  private nudge(windowMs = NUDGE_MS): void {
    const now = Date.now();
    const at = Math.max(now, this.lastNudge + windowMs);
    if (this.nudgeTimer) {
      if (at >= this.nudgeAt) return;
      clearTimeout(this.nudgeTimer);
      this.nudgeTimer = undefined;
    }
    const claim = () => {
      this.nudgeTimer = undefined;
      this.lastNudge = Date.now();
      this.kick();
    };
    if (at <= now) return claim();
    this.nudgeAt = at;
    this.nudgeTimer = setTimeout(claim, at - now);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const room = Math.min(CLAIM_BATCH, this.sockets - this.inFlight);
      let claimed = 0;
      let failed = false;
      this.woken = false;
      if (room > 0) {
        try {
          const { claimed: batch, again } = await this.deliverer.claimDue(room);
          claimed = batch.length;
          if (again) this.nudge();
          for (const delivery of batch) {
            this.inFlight++;
            this.deliverer
              .complete(delivery)
              .catch((error) =>
                this.log.warn('webhook attempt not recorded; the reconciler will close it', {
                  deliveryId: delivery.id,
                  ...errorFields(error),
                }),
              )
              .finally(() => {
                const atBound = this.inFlight >= this.sockets;
                this.inFlight--;
                if (this.inFlight === 0) for (const resolve of this.idle) resolve();
                if (atBound) this.nudge();
              });
          }
        } catch (error) {
          failed = true;
          this.log.warn('delivery pump could not claim', errorFields(error));
        }
      }
      if (!failed && ((claimed > 0 && claimed === room) || this.woken)) continue;
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
    clearInterval(this.rosterTimer);
    this.kick();
    await this.loop;
    if (this.inFlight > 0) await new Promise<void>((resolve) => this.idle.add(resolve));
    await this.listener?.stop();
    closeConnections();
    await closeBrokers();
  }
}
