import diagnostics from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { constants, type EventLoopUtilization, PerformanceObserver, performance } from 'node:perf_hooks';

// Where a call's added time goes, as the process answering it sees it (call-path.bench.ts): loaded into the API
// process and the floor's with `node --import`, it listens on Node's and undici's own diagnostics channels and keeps,
// for each callback answered while no other was in flight (one call at a time), two spans of wall-clock time: before
// asking (the callback's request received, headers parsed, to the endpoint's request started) and after the answer
// (the endpoint's answer headers received to the callback's answer handed to the kernel). What is left of the added
// time is outside the process's work: both sockets' writes and wake-ups, and the load's own side. It also keeps the
// process's garbage collections (Node's `gc` performance entries), each by its start on the machine's clock, so that
// the bench can tell the calls a collection overlapped, and likewise the service's writes of the call path's records
// (its own diagnostics channel). On SIGUSR2 it writes what it kept to SPLIT_PROBE_FILE (JSON)
// and starts afresh. A subscriber costs each message one call of a few
// clock reads; nothing else in the process changes.

export interface SplitSample {
  beforeMs: number;
  afterMs: number;
  /** undici's only: from the endpoint's request started to its body written to the socket. */
  sendMs?: number;
  /** undici's only: from the endpoint's request written to its answer's headers received. */
  waitMs?: number;
}

/** A garbage collection: its start (milliseconds since the epoch, to a fraction), its length and its kind. */
export interface GcPause {
  at: number;
  ms: number;
  kind: 'scavenge' | 'mark-sweep' | 'other';
}

/** A batch of the call path's records written (services/calls/company-batches.ts): its start and length, as GcPause's. */
export interface BatchWrite {
  at: number;
  ms: number;
  /** Of its span, the time the event loop was busy (its own work and the calls' beside it): Node's loop utilization. */
  busyMs: number;
}

export interface SplitRecord {
  samples: SplitSample[];
  pauses: GcPause[];
  writes: BatchWrite[];
}

interface Open {
  arrived: number;
  asked?: number;
  sent?: number;
  answered?: number;
}

const file = process.env.SPLIT_PROBE_FILE;
const open = new Map<object, Open>();
let samples: SplitSample[] = [];
let pauses: GcPause[] = [];
let writes: BatchWrite[] = [];
/** performance.now() and the loop's utilization at the start of each batch write in progress (several may overlap). */
const writing: Array<{ at: number; elu: EventLoopUtilization }> = [];

const kindOf = (kind: number): GcPause['kind'] =>
  kind === constants.NODE_PERFORMANCE_GC_MINOR
    ? 'scavenge'
    : kind === constants.NODE_PERFORMANCE_GC_MAJOR
      ? 'mark-sweep'
      : 'other';
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as { detail?: { kind?: number } }).detail?.kind ?? 0;
    pauses.push({ at: performance.timeOrigin + entry.startTime, ms: entry.duration, kind: kindOf(kind) });
  }
}).observe({ entryTypes: ['gc'] });

/** The one callback in flight, or none when several are (their spans cannot be told apart). */
const alone = () => (open.size === 1 ? open.values().next().value : undefined);

/** A callback whose answer never finished (its client went away) is forgotten after this long. */
const FORGET_MS = 10_000;

diagnostics.subscribe('http.server.request.start', (message) => {
  const now = performance.now();
  for (const [request, call] of open) if (now - call.arrived > FORGET_MS) open.delete(request);
  open.set((message as { request: object }).request, { arrived: now });
});
const asked = () => {
  const call = alone();
  if (call && call.asked === undefined) call.asked = performance.now();
};
const sent = () => {
  const call = alone();
  if (call && call.asked !== undefined && call.sent === undefined) call.sent = performance.now();
};
const answered = () => {
  const call = alone();
  if (call && call.asked !== undefined) call.answered = performance.now();
};
// undici (Switchboard's caller) and node:http (the floor's): a request started, its answer's headers received.
diagnostics.subscribe('undici:request:create', asked);
diagnostics.subscribe('http.client.request.start', asked);
diagnostics.subscribe('undici:request:bodySent', sent);
diagnostics.subscribe('undici:request:headers', answered);
diagnostics.subscribe('http.client.response.finish', answered);
diagnostics.subscribe('http.server.response.finish', (message) => {
  const request = (message as { request: object }).request;
  const call = open.get(request);
  open.delete(request);
  if (call?.asked !== undefined && call.answered !== undefined)
    samples.push({
      beforeMs: call.asked - call.arrived,
      afterMs: performance.now() - call.answered,
      ...(call.sent === undefined ? {} : { sendMs: call.sent - call.asked, waitMs: call.answered - call.sent }),
    });
});

// The service's own channel (services/calls/company-batches.ts); the floor publishes nothing on it.
diagnostics.subscribe('switchboard:call-path:batch-write', (message) => {
  const now = performance.now();
  if ((message as { phase: string }).phase === 'start')
    writing.push({ at: now, elu: performance.eventLoopUtilization() });
  else {
    const started = writing.shift();
    if (started !== undefined)
      writes.push({
        at: performance.timeOrigin + started.at,
        ms: now - started.at,
        busyMs: performance.eventLoopUtilization(started.elu).active,
      });
  }
});

process.on('SIGUSR2', () => {
  if (file) writeFileSync(file, JSON.stringify({ samples, pauses, writes } satisfies SplitRecord));
  samples = [];
  pauses = [];
  writes = [];
});
