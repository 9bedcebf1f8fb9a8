import diagnostics from 'node:diagnostics_channel';
import { Worker } from 'node:worker_threads';
import type { Config } from '../config/config.js';
import type { Logger } from '../observability/logger.js';
import type { CallRecords, DecisionRecord, TurnRecord } from '../services/calls/call-records.js';

// The call path's records written on a thread of their own (docs/adr/0111-call-records-on-a-thread-of-their-own.md):
// the event loop that answers the provider hands each record over as a message, and the thread (records-thread.main.ts,
// started with the API process, and again at the next record after it failed) writes them, a company's together, with
// its own entities and two connections. What the writes cost in CPU (the unit of work, the statements' serialization,
// their garbage) no longer runs between the steps of the answers in flight.
//
// A record is the API's until the thread says it is written. A thread that stops without being asked (it failed) is
// replaced and handed every record it had not written: writing one twice changes nothing
// (services/calls/record-writer.ts). After THREAD_FAILURES_MAX failures in a row with nothing written, its records are
// given up, each logged, as the writer gives up one that fails alone.

const THREAD_FAILURES_MAX = 3;

/** What the thread starts from. */
export interface RecordsThreadData {
  config: Config;
  databaseUrl: string;
  /** The API's clock less the system's, in milliseconds (a test's clock of its own). */
  clockOffsetMs: number;
}

/** Handed to the thread. */
export type ToThread =
  | { kind: 'decision'; id: number; record: DecisionRecord }
  | { kind: 'turn'; id: number; record: TurnRecord }
  /** Write what is waiting now (at shutdown). */
  | { kind: 'flush' }
  | { kind: 'stop' };

/** From the thread. */
export type FromThread =
  | { kind: 'written'; ids: number[] }
  | { kind: 'log'; level: keyof Logger; message: string; fields?: Record<string, unknown> }
  /** A batch's write starting or ending, published again here (services/calls/company-batches.ts). */
  | { kind: 'batch'; message: unknown };

const BATCH_WRITES = diagnostics.channel('switchboard:call-path:batch-write');

type Handed = Extract<ToThread, { id: number }>;

export class RecordsThread implements CallRecords {
  private worker: Worker | undefined;
  private nextId = 0;
  /** Handed over and not written yet, by id. */
  private readonly pending = new Map<number, { message: Handed; done: () => void }>();
  /** Told once nothing is pending. */
  private drained: Array<() => void> = [];
  private failures = 0;
  private stopping = false;

  constructor(
    private readonly data: () => RecordsThreadData,
    private readonly log: Logger,
  ) {}

  decision(record: DecisionRecord): Promise<void> {
    return this.hand({ kind: 'decision', id: ++this.nextId, record });
  }

  turn(record: TurnRecord): Promise<void> {
    return this.hand({ kind: 'turn', id: ++this.nextId, record });
  }

  async settled(): Promise<void> {
    if (this.pending.size === 0) return;
    this.worker?.postMessage({ kind: 'flush' } satisfies ToThread);
    await new Promise<void>((resolve) => this.drained.push(resolve));
  }

  /** Starts the thread now (with the API process): it loads its services while nothing waits for them. */
  start(): void {
    this.thread();
  }

  /** Writes what was handed over, then ends the thread (at shutdown, after HTTP has drained). */
  async stop(): Promise<void> {
    await this.settled();
    this.stopping = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage({ kind: 'stop' } satisfies ToThread);
    await exited;
  }

  private hand(message: Handed): Promise<void> {
    return new Promise((done) => {
      this.pending.set(message.id, { message, done });
      const worker = this.thread();
      if (this.pending.size === 1) worker.ref();
      worker.postMessage(message);
    });
  }

  /** The thread, started when first needed. */
  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./records-thread.main.js', import.meta.url), { workerData: this.data() });
    worker.on('message', (message: FromThread) => this.heard(message));
    worker.on('error', (error) => this.log.error('the call records thread failed', { error: error.message }));
    worker.on('exit', (code) => this.exited(worker, code));
    if (this.pending.size === 0) worker.unref();
    return (this.worker = worker);
  }

  private heard(message: FromThread): void {
    if (message.kind === 'written') {
      this.failures = 0;
      for (const id of message.ids) this.written(id);
    } else if (message.kind === 'log') this.log[message.level](message.message, message.fields);
    else if (BATCH_WRITES.hasSubscribers) BATCH_WRITES.publish(message.message);
  }

  private written(id: number): void {
    const handed = this.pending.get(id);
    if (!handed) return;
    this.pending.delete(id);
    handed.done();
    if (this.pending.size > 0) return;
    this.worker?.unref();
    const drained = this.drained;
    this.drained = [];
    for (const resolve of drained) resolve();
  }

  /** A thread ended: asked to, or failed (its records are handed to a new one, or given up). */
  private exited(worker: Worker, code: number): void {
    if (this.worker === worker) this.worker = undefined;
    if (this.stopping || this.pending.size === 0) return;
    this.failures += 1;
    const left = [...this.pending.values()];
    if (this.failures >= THREAD_FAILURES_MAX) {
      this.log.error('the call records thread failed again: its records are given up', {
        code,
        records: left.length,
      });
      for (const { message } of left) {
        this.log.error('a call was answered but its record not written', { callSid: sidOf(message) });
        this.written(message.id);
      }
      return;
    }
    this.log.warn('the call records thread stopped: its records go to a new one', { code, records: left.length });
    const next = this.thread();
    next.ref();
    for (const { message } of left) next.postMessage(message);
  }
}

const sidOf = (message: Handed) => (message.kind === 'decision' ? message.record.call.callSid : message.record.callSid);
