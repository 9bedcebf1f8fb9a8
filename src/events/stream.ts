// An async iterator fed by pushes, for a subscription's resolver to return:
// items wait in order until read; a reader too far behind (more than `limit`
// waiting) or a failure ends it with an error at its next read; `onEnd` runs
// once, however it ends (failed, or returned by graphql-ws when the client
// stops or goes).

export interface PushStream<T> {
  iterator: AsyncIterableIterator<T>;
  push(item: T): void;
  fail(error: Error): void;
}

export function pushStream<T>(limit: number, tooFarBehind: string, onEnd: () => unknown): PushStream<T> {
  const queue: T[] = [];
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  let done = false;
  const finish = async () => {
    if (done) return;
    done = true;
    wake?.();
    await onEnd();
  };
  const iterator: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => iterator,
    next: async () => {
      for (;;) {
        if (failure) {
          await finish();
          throw failure;
        }
        if (queue.length > 0) return { value: queue.shift()!, done: false };
        if (done) return { value: undefined, done: true };
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    },
    return: async () => {
      await finish();
      return { value: undefined, done: true };
    },
  };
  return {
    iterator,
    push: (item) => {
      if (queue.length >= limit) failure ??= new Error(tooFarBehind);
      else queue.push(item);
      wake?.();
    },
    fail: (error) => {
      failure ??= error;
      wake?.();
    },
  };
}
