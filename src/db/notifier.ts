import { randomInt } from 'node:crypto';
import type pg from 'pg';

// The NOTIFYs a process sends once its units of work have committed (docs/adr/0098-notifies-off-the-answer.md).
// PostgreSQL lets one transaction at a time notify in a database: a NOTIFY takes the notification queue's lock and
// keeps it until its transaction has ended, and a transaction of the delivery engine that notifies keeps it until
// its commit is on disk. Sent in the message of the COMMIT, the wake-ups made every answer wait its turn for that
// lock, behind every other notifier of the database. Here they go out on a connection of the process's own small
// pool, after the answer and not in its way, at most one statement at a time: what is asked while one is on its way
// goes in the next, as one transaction. A channel named in `merged` carries wake-ups: of those waiting, the newest
// alone is sent. A wake-up whose payload is TURN takes a turn (`turns`): those go out at most one per `spacingMs`
// (the first after a quiet spell at once), each numbered as it goes, so that listeners answering them by number
// take them in turns however many were merged; the notices of other channels asked for meanwhile wait with them, and
// a wake-up naming its target ends the wait (docs/adr/0100-wake-ups-spaced-at-the-source.md). A NOTIFY that fails
// is a lost hint, never an error of the change (listeners also poll).

/** A NOTIFY: its channel and payload. */
export type Notice = [channel: string, payload: string];

/** The payload of a wake-up that takes a turn: numbered by the notifier as it is sent. */
export const TURN = '#';

/** Wake-ups that take turns (payload TURN), sent at most one per `spacingMs`. */
export interface Turns {
  spacingMs: number;
}

const NOTIFY_MANY =
  'SELECT pg_notify(c, p) FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS n(c, p, i) ORDER BY i';

export class Notifier {
  private waiting: Notice[] = [];
  private sending?: Promise<void>;
  /** The number the next turn goes out with: it starts anywhere, so processes started together do not aim alike. */
  private turn = randomInt(1_000_000);
  /** When the last turn went out. */
  private lastTurn = 0;
  /** Ends the wait of turns for their spacing: an urgent notice came, and goes at once with them. */
  private endWait?: () => void;

  constructor(
    private readonly pool: pg.Pool,
    private readonly merged: ReadonlySet<string> = new Set(),
    private readonly turns: Turns = { spacingMs: 0 },
  ) {}

  /** Sends the notices, soon: in the statement on its way's wake if there is one, else at once. */
  send(notices: Notice[]): void {
    for (const notice of notices) {
      const [channel, payload] = notice;
      const at = this.waiting.findIndex(([c, p]) => c === channel && (p === payload || this.merged.has(channel)));
      // A turn merges into any wake-up waiting on its channel, which goes at once; a wake-up replaces a turn.
      if (at >= 0 && payload !== TURN) this.waiting[at] = notice;
      else if (at < 0) this.waiting.push(notice);
      if (this.urgent(notice)) this.endWait?.();
    }
    this.sending ??= this.drain();
  }

  /** A wake-up that names its target (on a merged channel, not a turn) goes at once: the rest may wait for a turn. */
  private urgent([channel, payload]: Notice): boolean {
    return payload !== TURN && this.merged.has(channel);
  }

  /** Resolves once nothing is waiting or on its way (at shutdown). */
  async settled(): Promise<void> {
    while (this.sending) await this.sending;
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      // A turn waiting, the last one gone less than the spacing ago, nothing urgent: all wait for it (merging meanwhile).
      const early = this.lastTurn + this.turns.spacingMs - Date.now();
      if (
        early > 0 &&
        this.waiting.some(([, payload]) => payload === TURN) &&
        !this.waiting.some((n) => this.urgent(n))
      )
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, early);
          this.endWait = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      this.endWait = undefined;
      const batch = this.waiting.map(([channel, payload]): Notice => {
        if (payload !== TURN) return [channel, payload];
        this.lastTurn = Date.now();
        return [channel, String(this.turn++ % 1_000_000_000)];
      });
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
