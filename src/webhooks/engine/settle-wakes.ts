import type { RequestContext } from '../../context/request-context.js';
import { oldestDue } from './claim.js';
import { DUE_CHANNEL } from './due-channel.js';

// What a settle frees, and the pumps' wake-up it may owe for the work that waited (settle.ts's statements use both).

/** Due work waiting longer than this has missed its own wake-up: a settle of its endpoint wakes the pumps for it. */
const HELD_MS = 200;

// Each closed lease leaves its endpoint's count of attempts in flight (rows in webhook order, as the claims take
// them); and where due work is waiting that no other wake-up is on its way for, the pumps are woken (the statement
// returns the wake-up, `e` and the endpoint's id, as a row of its own; the process's notifier sends it once the
// statement has committed, out of the lock's way: docs/adr/0098; the pump whose turn that is claims:
// wake-targets.ts), not only this one's. That is work the settled attempts held back (the endpoint was at its limit, or it orders per
// subject and a subject's next delivery waited for the one settled), or work due for longer than a wake-up takes
// (HELD_MS: a backlog, slots an endpoint's concurrency grew by). Younger work has its own wake-up on the way (its
// writer's, its retry's job): a wake-up here would only race it to a claim, one of them finding nothing
// (docs/adr/0093). `start`: the concurrency of an endpoint that has none of its own yet; `from`, `to`: the due
// window (due-window.ts), SQL expressions.
export const released = (start: number, from: string, to: string) => `
    INSERT INTO webhook_counters AS c (webhook_id, in_flight)
    SELECT webhook_id, -count(*)::int FROM settled GROUP BY webhook_id ORDER BY webhook_id
    ON CONFLICT (webhook_id) DO UPDATE SET in_flight = c.in_flight + excluded.in_flight
    RETURNING c.webhook_id, c.in_flight
  ), waiting AS (
    SELECT 'e' || e.webhook_id AS wake
    FROM (
      SELECT r.webhook_id, r.in_flight + s.n AS before, ${oldestDue('r.webhook_id', from, to)} AS due
      FROM released r JOIN (SELECT webhook_id, count(*)::int AS n FROM settled GROUP BY webhook_id) s USING (webhook_id)
    ) e JOIN webhooks w ON w.id = e.webhook_id
    WHERE e.due IS NOT NULL AND (w.ordering = 'subject' OR e.before >= coalesce(w.concurrency, ${Math.trunc(start)})
      OR e.due < now() - interval '${HELD_MS} milliseconds')
    LIMIT 1
`;

/** The pumps' wake-up a settle statement returned (a row of its own), sent once its unit of work commits. */
export function wakeAfterCommit<T>(ctx: RequestContext, rows: T[]): T[] {
  for (const row of rows) {
    const wake = (row as { wake?: string | null }).wake;
    if (wake) ctx.notifyAfterCommit(DUE_CHANNEL, wake);
  }
  return rows;
}
