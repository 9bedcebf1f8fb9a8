import diagnostics from 'node:diagnostics_channel';
import type { QuietMoments } from './quiet-moments.js';

// What the call path writes after its answers (docs/adr/0096-decisions-recorded-together.md,
// docs/adr/0099-call-path-records-spaced.md), gathered by company: a company's items answered meanwhile are written
// together at the call path's next quiet moment (quiet-moments.ts), at once when BATCH_MAX are waiting. A batch that
// fails is written again item by item, so one item's failure is its own.

/** Items written together at most (an inbound call's batch names its calls in one notification's payload). */
const BATCH_MAX = 100;

/**
 * Each batch's write, as it starts and as it ends (`{ phase: 'start' | 'end', companyId, items }`), for a profiler
 * of the call path (the bench's split probe tells the answers a write ran beside); nothing is published without a
 * subscriber.
 */
const BATCH_WRITES = diagnostics.channel('switchboard:call-path:batch-write');

export interface BatchWriter<T> {
  /** Writes a batch of one company's items (in one unit of work, or one statement). */
  write(batch: T[]): Promise<void>;
  /** An item not written, even alone. */
  failed(item: T, error: Error): void;
  /** After a batch's write, written or not. */
  done?(batch: T[]): void;
}

export class CompanyBatches<T> {
  /** Answered and not yet written, by company. */
  private readonly waiting = new Map<number, T[]>();
  private readonly writing = new Set<Promise<void>>();
  /** A flush is put off until the next quiet moment. */
  private flushing = false;

  constructor(
    private readonly quiet: QuietMoments,
    private readonly writer: BatchWriter<T>,
  ) {}

  /** Writes the item soon, with the others of its company answered meanwhile. */
  add(companyId: number, item: T): void {
    let batch = this.waiting.get(companyId);
    if (!batch) this.waiting.set(companyId, (batch = []));
    batch.push(item);
    if (batch.length >= BATCH_MAX) return this.flush(companyId);
    if (this.flushing) return;
    this.flushing = true;
    this.quiet.later(() => this.flushAll());
  }

  /** Resolves once every item added so far is written (at shutdown, after HTTP has drained). */
  async settled(): Promise<void> {
    this.flushAll();
    await Promise.allSettled([...this.writing]);
  }

  private flushAll(): void {
    this.flushing = false;
    for (const companyId of [...this.waiting.keys()]) this.flush(companyId);
  }

  private flush(companyId: number): void {
    const batch = this.waiting.get(companyId);
    this.waiting.delete(companyId);
    if (!batch || batch.length === 0) return;
    const { writer } = this;
    if (BATCH_WRITES.hasSubscribers) BATCH_WRITES.publish({ phase: 'start', companyId, items: batch.length });
    const written: Promise<void> = writer
      .write(batch)
      .catch(async (error: Error) => {
        if (batch.length === 1) return writer.failed(batch[0], error);
        for (const one of batch) await writer.write([one]).catch((again: Error) => writer.failed(one, again));
      })
      .finally(() => {
        if (BATCH_WRITES.hasSubscribers) BATCH_WRITES.publish({ phase: 'end', companyId, items: batch.length });
        writer.done?.(batch);
        this.writing.delete(written);
      });
    this.writing.add(written);
  }
}
