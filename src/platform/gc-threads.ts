import { setFlagsFromString } from 'node:v8';
import type { Config } from '../config/config.js';

// Where V8 collects garbage (docs/adr/0108-garbage-collected-on-the-main-thread.md). `parallel` is V8's own way: each
// collection shares its work with helper threads, and marking and sweeping go on beside the program. `main` keeps
// all of it on the event loop's thread. On a host whose cores are busy (the API beside its workers and PostgreSQL),
// a collection that waits for helper threads waits for their turn at a core; a niced worker's helpers (created
// before it lowers its priority) compete at full priority. These are the flags that can change once V8 is running;
// parallel marking cannot, and its helpers are used only by a full collection's final pause.

const MAIN_THREAD_ONLY = [
  '--no-parallel-scavenge',
  '--no-parallel-compaction',
  '--no-parallel-pointer-update',
  '--no-concurrent-marking',
  '--no-concurrent-sweeping',
];

/** Sets where this process collects garbage; call it before the service's modules load. */
export function collectGarbageOn(threads: Config['gcThreads']): void {
  if (threads === 'main') for (const flag of MAIN_THREAD_ONLY) setFlagsFromString(flag);
}
