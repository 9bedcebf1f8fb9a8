import { fork } from 'node:child_process';
import path from 'node:path';
import type { LoadResult, LoadRun } from './load-process.js';

/** The load's own process (load-process.ts), started and ready: GraphQL mutations offered from it, one run at a time. */
export async function mutationLoad() {
  const child = fork(path.resolve('dist/bench/load-process.js'));
  await new Promise((resolve) => child.once('message', resolve));
  return {
    pid: child.pid!,
    offer: (run: LoadRun) =>
      new Promise<LoadResult>((resolve) => {
        child.once('message', (result) => resolve(result as LoadResult));
        child.send(run);
      }),
    close: () => child.kill(),
  };
}
