import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { readingPool } from '../src/db/reads.js';
import { adminUrl } from './helpers/app.js';

// A statements pool keeps two connections open while idle (docs/adr/0113-viewers-renewed-ahead.md): after a quiet spell
// longer than pg-pool's idle timeout (10 s), the first statements run on backends already started, and the pool holds
// no more than that.

describe('the statements pool (readingPool) after a quiet spell', () => {
  const pool = readingPool(adminUrl(), 3);
  after(() => pool.end());

  /** The backends that ran `n` statements at once. */
  const burst = async (n: number) => {
    const rows = await Promise.all(
      Array.from({ length: n }, () => pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)')),
    );
    return rows.map((r) => r.rows[0].pid).sort((a, b) => a - b);
  };

  it('keeps two of its connections past the idle timeout, and closes the rest', async () => {
    const first = await burst(3);
    assert.equal(new Set(first).size, 3, 'three connections opened');
    await new Promise((resolve) => setTimeout(resolve, 10_500));
    assert.equal(pool.totalCount, 2);
    const again = await burst(2);
    assert.equal(again.filter((pid) => first.includes(pid)).length, 2, 'the two kept ran the next statements');
  });
});
