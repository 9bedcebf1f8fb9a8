import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { readingPool } from '../src/db/reads.js';
import { adminUrl } from './helpers/app.js';

// A pool keeps the connections it opens (docs/adr/0113-viewers-renewed-ahead.md): a burst after a quiet spell longer
// than pg-pool's idle timeout (10 s) runs on the same backends, instead of starting new ones while answers wait.

describe('the statements pool (readingPool) after a quiet spell', () => {
  const pool = readingPool(adminUrl(), 3);
  after(() => pool.end());

  /** The backends that ran three statements at once. */
  const burst = async () => {
    const rows = await Promise.all(
      [1, 2, 3].map(() => pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)')),
    );
    return rows.map((r) => r.rows[0].pid).sort((a, b) => a - b);
  };

  it('keeps its connections past the idle timeout: the next burst runs on the same backends', async () => {
    const first = await burst();
    assert.equal(new Set(first).size, 3, 'three connections opened');
    await new Promise((resolve) => setTimeout(resolve, 10_500));
    assert.equal(pool.totalCount, 3);
    assert.deepEqual(await burst(), first);
  });
});
