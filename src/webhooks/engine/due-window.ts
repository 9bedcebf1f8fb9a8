import { encodeTime } from 'ulid';
import type { ContextFactory } from '../../context/request-context.js';
import type { DeliveryLogPartitions, Partition } from './partitions.js';

// The span of delivery ids where work can come due (docs/adr/0103-claims-within-the-due-window.md). The delivery
// log is partitioned by the time in its ids (partitions.ts): under the default retention about eight partitions
// behind today and two ahead. A statement of fixed text, planned once per connection, opens and locks every
// partition it may read or write each time it runs, unless a bound on the key given as a parameter lets PostgreSQL
// leave the others out before it starts. The claims and the settles' probes are bounded by this window:
//
// - from: where the oldest partition begins that holds a delivery pending or in flight (an attempt in flight may
//   come due again), or the oldest such delivery of the default partition, or a day before now, whichever is
//   oldest;
// - to: a day after now (the ids of deliveries a process makes are its clock's time: a day covers clocks that
//   disagree).
//
// Read again (the partitions from the catalog, then their rows) at most once a second, before a claim. Work can
// only come due outside the last reading by the restart of a finished delivery (a replay or a resend of one older
// than the window): it is claimed once the window is read again, within two seconds.

const DAY_MS = 86_400_000;
/** How far the window reaches before and after now, for ids made by clocks that disagree. */
export const WINDOW_MARGIN_MS = DAY_MS;
/** The window is read again when its last reading is older than this. */
export const WINDOW_READ_MS = 1000;

export interface IdWindow {
  from: string;
  to: string;
}

/** A batch's parameters: its first and last id (the partitions its rows are in), then the window. */
export function windowParams(ids: string[], window: IdWindow): string[] {
  const sorted = [...ids].sort();
  return [sorted[0], sorted[sorted.length - 1], window.from, window.to];
}

const keyAt = (ms: number) => `msg_${encodeTime(Math.max(0, ms), 10)}`;

/** Whether a delivery of the partition (ONLY its own rows) is pending and due at some time, or in flight. */
const busy = (table: string) =>
  `EXISTS (SELECT 1 FROM ONLY "${table}" WHERE status = 'pending' AND next_attempt_at IS NOT NULL) ` +
  `OR EXISTS (SELECT 1 FROM ONLY "${table}" WHERE lease_token IS NOT NULL)`;

/** The oldest bound of the window the rows allow, from the partitions (oldest first) and the default partition. */
export function windowStatement(partitions: Partition[]): string {
  const oldest = partitions.length
    ? `CASE ${partitions.map((p) => `WHEN ${busy(p.name)} THEN '${keyAt(p.from)}'`).join(' ')} END`
    : 'NULL::text';
  return (
    `SELECT least((SELECT min(id) FROM ONLY webhook_deliveries_default WHERE (status = 'pending' ` +
    `AND next_attempt_at IS NOT NULL) OR lease_token IS NOT NULL), ${oldest}) AS oldest`
  );
}

export class DueWindow {
  private oldest: string | null = null;
  private readAt = -Infinity;
  private reading?: Promise<void>;

  constructor(
    private readonly contexts: ContextFactory,
    private readonly partitions: DeliveryLogPartitions,
  ) {}

  /** The window as of now, read again first when its last reading is older than WINDOW_READ_MS. */
  async current(now = Date.now()): Promise<IdWindow> {
    if (now - this.readAt >= WINDOW_READ_MS) {
      this.reading ??= this.read().finally(() => {
        this.reading = undefined;
      });
      await this.reading;
    }
    const margin = keyAt(now - WINDOW_MARGIN_MS);
    return {
      from: this.oldest !== null && this.oldest < margin ? this.oldest : margin,
      to: keyAt(now + WINDOW_MARGIN_MS),
    };
  }

  /** The partitions as they are now (a catalog read), then their rows: a partition made or dropped meanwhile is read next time. */
  private async read(): Promise<void> {
    const started = Date.now();
    const own = (await this.partitions.list()).filter((p) => p.table === 'webhook_deliveries');
    const [row] = await this.contexts
      .forMaintenance('webhook-due-window')
      .unitOfWork((ctx) => ctx.sql<{ oldest: string | null }>(windowStatement(own)), {
        lane: 'engine',
        oneStatement: true,
      });
    this.oldest = row?.oldest ?? null;
    this.readAt = started;
  }
}
