// Which wake-ups a worker's pump answers (docs/adr/0073-wake-ups-aimed-at-one-pump.md).
//
// A commit that wrote deliveries and a result that freed an endpoint's slot
// both NOTIFY the due channel, and every pump hears every notification; were
// each to claim, every wake-up would cost one claim per worker, all but one
// finding nothing. So a wake-up names a number (the writer's count, or `e` and
// the endpoint's id), and only the pump at that number's place among the pumps
// claims for it. The pumps find each other from PostgreSQL's own list of
// sessions: each listens on a connection named PUMP_APPLICATION and asks, once
// a second on it, which such connections of its database asked within the
// last few seconds; a pump stopped or paused drops out of the others' list
// once that time has passed. While two pumps' lists differ (a pump starting or
// leaving) a wake-up may be answered by two pumps (a claim that finds nothing)
// or by none (its work waits for a pump's poll, never longer): nothing is lost.

/** The application_name of a pump's listening connection. */
export const PUMP_APPLICATION = 'switchboard-pump';
/** How often a pump asks for the list, and how long an entry counts after its pump last asked. */
export const ROSTER_EVERY_MS = 1000;
const ROSTER_KEEP_SECONDS = 3;

/** The pumps' listening sessions of this database that asked within the last few seconds, oldest first. */
export const ROSTER = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = '${PUMP_APPLICATION}'
  AND state_change > now() - interval '${ROSTER_KEEP_SECONDS} seconds' ORDER BY backend_start, pid`;

export class WakeTargets {
  private place = 0;
  private size = 1;

  /** The list as last read, and this pump's own session in it. */
  update(pids: number[], own: number | undefined): void {
    const at = own === undefined ? -1 : pids.indexOf(own);
    // Not in the list (not yet seen by PostgreSQL's statistics): answer every wake-up until it is.
    this.size = at < 0 ? 1 : pids.length;
    this.place = Math.max(at, 0);
  }

  /** Forgets the list (the connection dropped): every wake-up is answered until it is read again. */
  reset(): void {
    this.update([], undefined);
  }

  /** Whether this pump claims for a wake-up (a number, or `e` and an endpoint's id); one that names none is for every pump. */
  mine(payload: string | undefined): boolean {
    const named = payload && /^e?(\d{1,15})$/.exec(payload);
    if (this.size <= 1 || !named) return true;
    return Number(named[1]) % this.size === this.place;
  }
}
