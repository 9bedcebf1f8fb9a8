import type { CompanyScope, RequestContext } from '../../context/request-context.js';
import type { CallDecision } from '../../kernel/call-decision.js';
import type { Logger } from '../../observability/logger.js';
import type { InboundCallArrived } from '../../telco/callbacks.js';
import type { CallTurnWritten } from '../call-transcript.service.js';
import { CompanyBatches } from './company-batches.js';
import type { QuietMoments } from './quiet-moments.js';

// What the call path records once its answer is out (docs/adr/0096-decisions-recorded-together.md): an inbound
// call's decision, a tool call's turn. Each is plain data (the company, the request it came from, what was answered),
// so that it can be written on a thread of its own (docs/adr/0111-call-records-on-a-thread-of-their-own.md,
// platform/records-thread.ts) or here, on the event loop that answered it, at its quiet moments (LocalCallRecords).

/** An inbound call answered, to record with its decision. */
export interface DecisionRecord {
  company: CompanyScope;
  requestId: string;
  call: InboundCallArrived;
  decision: CallDecision;
  /** When it was answered: the call's start. */
  at: Date;
}

/** A tool call answered, to keep as a turn of its call's transcript. */
export interface TurnRecord {
  company: CompanyScope;
  requestId: string;
  callSid: string;
  turn: CallTurnWritten;
}

/** Where the call path's records go. Each promise resolves once its record is written, or given up and logged. */
export interface CallRecords {
  decision(record: DecisionRecord): Promise<void>;
  turn(record: TurnRecord): Promise<void>;
  /** Resolves once every record handed over so far is written (at shutdown, after HTTP has drained). */
  settled(): Promise<void>;
}

/** How a batch of one company's records is written (record-writer.ts). */
export interface RecordWriter {
  decisions(ctx: RequestContext, batch: DecisionRecord[]): Promise<void>;
  turns(ctx: RequestContext, turns: CallTurnWritten[]): Promise<void>;
}

interface Waiting<T> {
  record: T;
  done: () => void;
}

/**
 * The records written on this event loop: a company's records handed over meanwhile together, at its next quiet
 * moment (company-batches.ts); one that fails, even alone, is logged.
 */
export class LocalCallRecords implements CallRecords {
  private readonly decisions: CompanyBatches<Waiting<DecisionRecord>>;
  private readonly turns: CompanyBatches<Waiting<TurnRecord>>;

  constructor(
    writer: RecordWriter,
    /** The system acting for the record's company, where its batch is written. */
    contextOf: (record: DecisionRecord | TurnRecord, reason: string) => RequestContext,
    quiet: QuietMoments,
    log: Logger,
  ) {
    const done = (batch: Array<{ done: () => void }>) => {
      for (const one of batch) one.done();
    };
    this.decisions = new CompanyBatches<Waiting<DecisionRecord>>(quiet, {
      write: (batch) =>
        writer.decisions(
          contextOf(batch[0].record, 'inbound calls recorded'),
          batch.map((one) => one.record),
        ),
      failed: ({ record }, error) =>
        log.error('an inbound call was answered but its decision not recorded', {
          callSid: record.call.callSid,
          error: error.message,
        }),
      done,
    });
    this.turns = new CompanyBatches<Waiting<TurnRecord>>(quiet, {
      write: (batch) =>
        writer.turns(
          contextOf(batch[0].record, 'tool calls kept'),
          batch.map((one) => one.record.turn),
        ),
      failed: ({ record }, error) =>
        log.error('a tool call was answered but its transcript turn not written', {
          callSid: record.callSid,
          error: error.message,
        }),
      done,
    });
  }

  decision(record: DecisionRecord): Promise<void> {
    return new Promise((done) => this.decisions.add(record.company.id, { record, done }));
  }

  turn(record: TurnRecord): Promise<void> {
    return new Promise((done) => this.turns.add(record.company.id, { record, done }));
  }

  async settled(): Promise<void> {
    await Promise.all([this.decisions.settled(), this.turns.settled()]);
  }
}
