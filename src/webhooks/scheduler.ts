import type { Agenda } from 'agenda';

// Agenda holds the timers of retries; the delivery rows hold the truth. A
// job is keyed by its delivery and due time, so asking again for the same
// attempt never makes a second job. When it fires it wakes the pump of the
// worker that runs it, which claims whatever is due; a missing job only
// delays a retry until a pump's next poll.

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

  /** Wakes this process's pump; false when the process runs none. */
  kick(): boolean {
    this.pump?.kick();
    return this.pump !== undefined;
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
