// Results recorded together: what finished during one turn of the event loop
// becomes one statement instead of one per result. A batch may also be held
// a few milliseconds while more items are on their way (`hold`): the results
// of attempts claimed together, answered within a millisecond of each other,
// then go in one statement (docs/adr/0101-settles-held-for-their-claim.md).

/** Holding a batch open: at most `ms` after its first item, while `more()` says more items are on their way. */
export interface BatchHold<I> {
  ms: number;
  more: () => boolean;
  /** An item that must not wait: its batch goes at the next turn. */
  urgent?: (item: I) => boolean;
}

/**
 * Items added during one turn of the event loop handled together, `max` at a
 * time: `handle` answers each item of its batch, in order; if it throws, every
 * item of the batch is rejected (and its caller may add it again).
 */
export class TickBatch<I, O> {
  private readonly queue: Array<{ item: I; done: (out: O) => void; fail: (error: unknown) => void }> = [];
  private flushing = false;
  private timer?: NodeJS.Timeout;
  private immediate?: NodeJS.Immediate;
  /** An urgent item or a full batch is waiting: the batch goes at the next turn. */
  private now = false;

  constructor(
    private readonly max: number,
    private readonly handle: (items: I[]) => Promise<O[]>,
    private readonly hold?: BatchHold<I>,
  ) {}

  add(item: I): Promise<O> {
    return new Promise((done, fail) => {
      this.queue.push({ item, done, fail });
      if (!this.flushing) this.schedule(item);
    });
  }

  /** At the next turn, unless the batch is held: then when nothing more is on its way, or at the hold's end. */
  private schedule(item: I): void {
    const { hold } = this;
    if (hold?.urgent?.(item) === true || this.queue.length >= this.max) this.now = true;
    if (hold && !this.now) this.timer ??= setTimeout(() => this.go(), hold.ms);
    this.immediate ??= setImmediate(() => {
      this.immediate = undefined;
      if (this.now || !hold?.more()) this.go();
    });
  }

  private go(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.now = false;
    if (!this.flushing && this.queue.length > 0) void this.flush();
  }

  private async flush(): Promise<void> {
    this.flushing = true;
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
