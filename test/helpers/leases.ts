import assert from 'node:assert/strict';
import type { TestApp } from './app.js';
import { sleep } from './receiver.js';

/**
 * Each webhook's count of attempts in flight (webhook_counters.in_flight, which the claim raises and
 * the closing of a lease lowers) equals its deliveries that hold a lease: a count that drifted would
 * starve an endpoint (too high) or overrun its concurrency (too low).
 */
export async function assertInFlightCounted(app: TestApp): Promise<void> {
  // Read in one statement; an attempt settling at that moment may sit between the two reads of a
  // concurrent snapshot, so the check is made again (a count that drifted stays off).
  let drifted: unknown[] = [];
  for (let tries = 0; tries < 20; tries++) {
    drifted = await app.sql(
      `SELECT * FROM (SELECT w.id, coalesce(c.in_flight, 0) AS counted,
         (SELECT count(*)::int FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.lease_token IS NOT NULL) AS leased
       FROM webhooks w LEFT JOIN webhook_counters c ON c.webhook_id = w.id) t WHERE counted <> leased ORDER BY id`,
    );
    if (drifted.length === 0) return;
    await sleep(250);
  }
  assert.deepEqual(drifted, [], 'every webhook counts exactly its deliveries in flight');
}
