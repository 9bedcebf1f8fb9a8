// Results recorded together: what finished during one turn of the event loop
// becomes one statement instead of one per result.

/**
 * Items added during one turn of the event loop handled together, `max` at a
 * time: `handle` answers each item of its batch, in order; if it throws, every
 * item of the batch is rejected (and its caller may add it again).
 */
export class TickBatch<I, O> {
  private readonly queue: Array<{ item: I; done: (out: O) => void; fail: (error: unknown) => void }> = [];
  private flushing = false;

  constructor(
    private readonly max: number,
    private readonly handle: (items: I[]) => Promise<O[]>,
  ) {}

  add(item: I): Promise<O> {
    return new Promise((done, fail) => {
      this.queue.push({ item, done, fail });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.max);
      try {
        const outs = await this.handle(batch.map((b) => b.item));
        batch.forEach((b, i) => b.done(outs[i]));
      } catch (error) {
        for (const b of batch) b.fail(error);
      }
    }
    this.flushing = false;
  }
}
