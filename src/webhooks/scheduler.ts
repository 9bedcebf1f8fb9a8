import type { Agenda } from 'agenda';

// Agenda holds the timers of deliveries; the delivery rows hold the truth.
// A job is keyed by its delivery and due time, so asking again for the same
// attempt (after a commit, from the reconciler, after a restart) never makes
// a second job; a missing one only delays an attempt until the reconciler
// runs.

export const DELIVERY_JOB = 'webhook-delivery';

export interface DeliveryJobData {
  deliveryId: string;
  due: string;
}

export class DeliveryScheduler {
  private agenda?: Agenda;
  private pump?: { kick(): void };

  /** The pump of this process, if it runs one: woken when something is due now. */
  attachPump(pump: { kick(): void }): void {
    this.pump = pump;
  }

  kick(): void {
    this.pump?.kick();
  }

  /** Wakes this process's pump when `due` comes (a retry it just scheduled). */
  wakeAt(due: Date): void {
    if (!this.pump) return;
    setTimeout(() => this.pump?.kick(), Math.max(0, due.getTime() - Date.now())).unref();
  }

  /** Jobs can be created once the job store is up; before that the reconciler covers. */
  attach(agenda: Agenda): void {
    this.agenda = agenda;
  }

  async schedule(deliveryId: string, due: Date): Promise<void> {
    if (!this.agenda) return;
    const data: DeliveryJobData = { deliveryId, due: due.toISOString() };
    await this.agenda
      .create(DELIVERY_JOB, data)
      .unique({ 'data.deliveryId': deliveryId, 'data.due': data.due }, { insertOnly: true })
      .schedule(due)
      .save();
  }
}
