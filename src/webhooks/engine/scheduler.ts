import type { Agenda } from 'agenda';

// Agenda holds the timers of retries; the delivery rows hold the truth. A
// job is a moment, not a delivery: retries due within the same 50 ms share
// one job at the end of that window (never before any of them is due), so a
// burst of failures (one company's endpoints timing out together) creates a
// few jobs, not one per delivery. Asking again for a moment that has its job
// never makes a second one. When it fires it wakes the pump of the worker
// that runs it, which claims whatever is due; a missing job only delays a
// retry until a pump's next poll. The workers find jobs by scanning the job
// store every JOB_SCAN_MS, not by notifications (docs/adr/0105): a job is
// seen by the first scan after it is saved, or by the one after that, and a
// scan comes late when its process is busy; so a retry due before the second
// scan is also woken by a timer of the process that scheduled it (its own pump).

export const DELIVERY_JOB = 'webhook-delivery';
/** Retries due within one window share a job that fires at the window's end. */
export const RETRY_WINDOW_MS = 50;
/** How often each worker scans the job store for the jobs due before its next scan (each then runs at its time). */
export const JOB_SCAN_MS = 1000;
/** Windows this process remembers having scheduled, so asking again costs nothing. */
const REMEMBERED = 10_000;

export interface DeliveryJobData {
  due: string;
}

export class DeliveryScheduler {
  private agenda?: Agenda;
  private pump?: { kick(): void };
  private readonly scheduled = new Set<number>();

  /** The pump of this process, if it runs one: woken when something is due now. */
  attachPump(pump: { kick(): void }): void {
    this.pump = pump;
  }

  /** Wakes this process's pump; false when the process runs none. */
  kick(): boolean {
    this.pump?.kick();
    return this.pump !== undefined;
  }

  /** Jobs can be created once the job store is up; before that the pumps' poll covers. */
  attach(agenda: Agenda): void {
    this.agenda = agenda;
  }

  /** A timer for a retry due at `due`: the job of its window. */
  async schedule(due: Date): Promise<void> {
    if (!this.agenda) return;
    const at = Math.ceil(due.getTime() / RETRY_WINDOW_MS) * RETRY_WINDOW_MS;
    if (this.scheduled.has(at)) return;
    this.scheduled.add(at);
    if (this.scheduled.size > REMEMBERED) this.scheduled.delete(this.scheduled.values().next().value as number);
    const wait = at - Date.now();
    if (wait < 2 * JOB_SCAN_MS && this.pump) setTimeout(() => this.pump?.kick(), Math.max(0, wait)).unref();
    const data: DeliveryJobData = { due: new Date(at).toISOString() };
    try {
      await this.agenda
        .create(DELIVERY_JOB, data)
        .unique({ 'data.due': data.due }, { insertOnly: true })
        .schedule(new Date(at))
        .save();
    } catch (error) {
      this.scheduled.delete(at); // asked again, it is tried again
      throw error;
    }
  }
}
