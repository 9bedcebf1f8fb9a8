import type pg from 'pg';
import type { StatementRunner } from '../db/entity-manager.js';

// A unit of work's transaction (docs/adr/0092-transactions-in-fewer-round-trips.md). Its connection pipelines
// (db/reads.ts): a statement is written without waiting for the answer to the one before, and PostgreSQL answers
// them in order. So BEGIN costs no round trip of its own (it is written with the unit's first statement, and with the
// openings: what the unit's event sinks will read, the outbox's subscribed webhooks), and neither do the statements
// whose results nothing in the unit reads (the outbox's record of its events): they are written with the COMMIT.
// Both ends of the connection wake, and write, that much less.

/** What a statement's sending is wrapped in: its span, when the unit of work is traced. */
type Around = (send: () => Promise<pg.QueryResult>) => Promise<pg.QueryResult>;

export class PipelinedTransaction implements StatementRunner {
  /** BEGIN written: the transaction is open at the server (or the statements written after it fail). */
  private begun = false;
  /** Ended at the server, committed or rolled back. */
  private ended = false;
  private readonly deferred: Array<{ config: pg.QueryConfig; around?: Around }> = [];
  /** The answers of the openings, once written. */
  private readonly opened = new Map<string, Promise<pg.QueryResult>>();

  /** `openings`: statements written with the BEGIN, whose answers the unit may read (`opening`). */
  constructor(
    private readonly client: pg.PoolClient,
    private readonly openings: pg.QueryConfig[] = [],
  ) {}

  /** A statement in the transaction; the first is written together with the BEGIN and the openings. */
  query(config: pg.QueryConfig): Promise<pg.QueryResult> {
    if (this.begun) return this.client.query(config);
    const [answer, begun] = this.written(() => {
      const begun = Promise.all(this.begin());
      return [this.client.query(config), begun] as const;
    });
    return Promise.all([answer, begun]).then(([result]) => result);
  }

  /** The answer of the opening of that text, the transaction begun if it was not; undefined if it has no such opening. */
  opening(text: string): Promise<pg.QueryResult> | undefined {
    if (!this.openings.some((opening) => opening.text === text)) return undefined;
    if (!this.begun) this.written(() => this.begin());
    return this.opened.get(text);
  }

  /** BEGIN and the openings (each answer kept, a failure of one read by whoever reads it), written by the caller. */
  private begin(): Array<Promise<unknown>> {
    this.begun = true;
    const begin = this.client.query('BEGIN');
    // The rollback that follows a failure is the unit's to make; an opening no one reads fails quietly with it.
    begin.catch(() => undefined);
    for (const opening of this.openings) {
      const answer = this.client.query(opening);
      answer.catch(() => undefined);
      this.opened.set(opening.text, answer);
    }
    return [begin, ...this.opened.values()];
  }

  /**
   * A statement whose result nothing reads: written with the COMMIT, in its round trip; it failing rolls the unit
   * back. `around`: what its sending is wrapped in (its span, when traced).
   */
  atCommit(config: pg.QueryConfig, around?: Around): void {
    this.deferred.push({ config, around });
  }

  /**
   * COMMIT, with the statements deferred to it before it, in one write. A deferred statement that fails aborts the
   * transaction, and PostgreSQL answers the COMMIT after it by rolling back: its error is thrown, and nothing was
   * committed. (The NOTIFYs asked for go after it, on a connection of their own: db/notifier.ts.)
   */
  async commit(): Promise<void> {
    // Nothing was written: there is nothing to commit.
    if (!this.begun && this.deferred.length === 0) return;
    // A unit that wrote nothing until now needs no opening: nothing read it.
    const sent = this.written(() => [
      ...(this.begun ? [] : [this.client.query('BEGIN')]),
      ...this.deferred.map(({ config, around }) =>
        around ? around(() => this.client.query(config)) : this.client.query(config),
      ),
      this.client.query('COMMIT'),
    ]);
    this.begun = true;
    const answers = await Promise.allSettled(sent);
    const failed = answers.find((answer) => answer.status === 'rejected');
    if (failed) throw failed.reason;
    this.ended = true;
  }

  /** Rolls back what was written (nothing, when no statement was; a COMMIT that failed has already rolled back). */
  async rollback(): Promise<void> {
    if (this.begun && !this.ended) await this.client.query('ROLLBACK');
    this.ended = true;
  }

  /** The queries `send` makes, written to the server together: one write, one wake-up of the server. */
  private written<T>(send: () => T): T {
    const { stream } = this.client.connection;
    stream.cork();
    try {
      return send();
    } finally {
      stream.uncork();
    }
  }
}

/**
 * A transaction on a connection of `pool`: committed when fn resolves, rolled back when it throws. `openings`:
 * statements written with its BEGIN; `waited`: told how long the connection took to come.
 */
export async function transaction<T>(
  pool: pg.Pool,
  fn: (transaction: PipelinedTransaction) => Promise<T>,
  { openings = [], waited }: { openings?: pg.QueryConfig[]; waited?: (s: number) => void },
): Promise<T> {
  const asked = performance.now();
  const client = await pool.connect();
  waited?.((performance.now() - asked) / 1000);
  let broken: Error | undefined;
  // A connection lost while checked out (a database restart) reports it here, not as an uncaught error; the statement in progress fails too.
  const lost = (error: Error) => (broken = error);
  client.on('error', lost);
  const transaction = new PipelinedTransaction(client, openings);
  try {
    const result = await fn(transaction);
    await transaction.commit();
    return result;
  } catch (error) {
    // A connection that cannot even roll back is not given to anyone else.
    await transaction.rollback().catch((failure: Error) => (broken = failure));
    throw error;
  } finally {
    client.off('error', lost);
    client.release(broken);
  }
}

/** The pool, for one statement only: a unit of work of one statement that tried a second would no longer be one transaction. */
export function oneStatementOf(pool: pg.Pool): StatementRunner {
  let ran = false;
  return {
    query(config) {
      if (ran) return Promise.reject(new Error('A unit of work of one statement ran a second one.'));
      ran = true;
      return pool.query(config);
    },
  };
}
