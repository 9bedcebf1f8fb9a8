import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXHAUSTED } from './helpers/connections.js';

// The runner's summary says when PostgreSQL ran out of connections during a run (test/run.ts), from the lines the
// test files printed: PostgreSQL's own words and code, never a number that happens to hold the same digits.

describe("the runner's reading of its output", () => {
  it('finds PostgreSQL out of connections by its message or its code, not in a duration', () => {
    for (const line of [
      'error: sorry, too many clients already',
      "  code: '53300',",
      'FATAL:  remaining connection slots are reserved for non-replication superuser connections',
    ])
      assert.ok(EXHAUSTED.test(line), line);
    for (const line of ['✔ all-events (2481.533006ms)', 'duration_ms 153300.2', 'id 4533001'])
      assert.equal(EXHAUSTED.test(line), false, line);
  });
});
