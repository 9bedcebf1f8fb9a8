import type pg from 'pg';

// The NOTIFYs a process sends once its units of work have committed (docs/adr/0098-notifies-off-the-answer.md).
// PostgreSQL lets one transaction at a time notify in a database: a NOTIFY takes the notification queue's lock and
// keeps it until its transaction has ended, and a transaction of the delivery engine that notifies keeps it until
// its commit is on disk. Sent in the message of the COMMIT, the wake-ups made every answer wait its turn for that
// lock, behind every other notifier of the database. Here they go out on a connection of the process's own small
// pool, after the answer and not in its way, at most one statement at a time: what is asked while one is on its way
// goes in the next, as one transaction. A channel named in `merged` carries wake-ups: of those waiting, the newest
// alone is sent. A NOTIFY that fails is a lost hint, never an error of the change (listeners also poll).

/** A NOTIFY: its channel and payload. */
export type Notice = [channel: string, payload: string];

const NOTIFY_MANY =
  'SELECT pg_notify(c, p) FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS n(c, p, i) ORDER BY i';

export class Notifier {
  private waiting: Notice[] = [];
  private sending?: Promise<void>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly merged: ReadonlySet<string> = new Set(),
  ) {}

  /** Sends the notices, soon: in the statement on its way's wake if there is one, else at once. */
  send(notices: Notice[]): void {
    for (const notice of notices) {
      const [channel, payload] = notice;
      const at = this.waiting.findIndex(([c, p]) => c === channel && (p === payload || this.merged.has(channel)));
      if (at >= 0) this.waiting[at] = notice;
      else this.waiting.push(notice);
    }
    this.sending ??= this.drain();
  }

  /** Resolves once nothing is waiting or on its way (at shutdown). */
  async settled(): Promise<void> {
    while (this.sending) await this.sending;
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      await this.pool
        .query({
          name: 'notify-many',
          text: NOTIFY_MANY,
          values: [batch.map(([channel]) => channel), batch.map(([, payload]) => payload)],
        })
        .catch(() => undefined);
    }
    this.sending = undefined;
  }
}
