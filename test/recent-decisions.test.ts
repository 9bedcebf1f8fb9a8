import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentDecisions } from '../src/db/recent-decisions.js';

// The calls decided lately as an API process keeps them (src/db/recent-decisions.ts): when a call it does not know
// may be taken as undecided, and when the database must be asked. The database's part (the first read, the
// notifications) is shown across processes in call-path-facts.test.ts; here the window's arithmetic, on a clock
// the test moves.

const sid = (n: number) => `CA${n.toString(16).padStart(32, '0')}`;
const WINDOW = 60_000;
const settle = () => new Promise((resolve) => setImmediate(resolve));

function kept(first: { calls: Array<{ sid: string; at: number }>; coveredFrom: number } | Error, max = 100) {
  const clock = { now: 1_000_000 };
  const reads: Date[] = [];
  const recent = new RecentDecisions(
    async (since) => {
      reads.push(since);
      if (first instanceof Error) throw first;
      return first;
    },
    WINDOW,
    max,
    () => clock.now,
  );
  return { recent, clock, reads };
}

describe('calls decided lately', () => {
  it('asks the database until its first read is in, then knows every call of the window', async () => {
    const { recent, clock, reads } = kept({ calls: [{ sid: sid(1), at: 990_000 }], coveredFrom: 1_000_000 - WINDOW });
    assert.equal(recent.decided(sid(1)), undefined, 'not listening: the database is asked');
    recent.reset(true);
    assert.equal(recent.decided(sid(2)), undefined, 'the read not in yet');
    await settle();
    assert.deepEqual(reads, [new Date(1_000_000 - WINDOW)]);
    assert.equal(recent.decided(sid(1)), true);
    assert.equal(recent.decided(sid(2)), false);
    recent.told(`d${sid(2)}`);
    recent.told('dnot-a-sid');
    assert.equal(recent.decided(sid(2)), true, 'told by a commit');
    clock.now += WINDOW + 1;
    recent.add(sid(3));
    assert.equal(recent.decided(sid(1)), false, 'past the window, forgotten');
    assert.equal(recent.size, 1);
    recent.reset(false);
    assert.equal(recent.decided(sid(4)), undefined, 'no longer listening');
  });

  it('covers the window only from the oldest call kept when it keeps fewer than were decided', async () => {
    const { recent, clock } = kept({ calls: [], coveredFrom: 1_000_000 - WINDOW }, 2);
    recent.reset(true);
    await settle();
    recent.add(sid(1));
    clock.now += 10_000;
    recent.add(sid(2));
    recent.add(sid(3)); // the third pushes out the first: from then on only calls after it are known
    assert.equal(recent.decided(sid(1)), undefined, 'pushed out: the database is asked');
    clock.now += WINDOW;
    assert.equal(recent.decided(sid(1)), false, 'a window after the call pushed out, covered again');
  });

  it('asks the database when the first read was cut short or failed', async () => {
    const cut = kept({ calls: [{ sid: sid(1), at: 999_000 }], coveredFrom: 999_000 });
    cut.recent.reset(true);
    await settle();
    assert.equal(cut.recent.decided(sid(2)), undefined, 'the read covers the last second only');
    cut.clock.now = 999_000 + WINDOW;
    assert.equal(cut.recent.decided(sid(2)), false);
    const failed = kept(new Error('the database away'));
    failed.recent.reset(true);
    await settle();
    assert.equal(failed.recent.decided(sid(2)), undefined);
  });
});
