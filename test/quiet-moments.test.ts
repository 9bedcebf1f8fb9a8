import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QuietMoments } from '../src/services/calls/quiet-moments.js';

// When the call path's records run (src/services/calls/quiet-moments.ts): after the answers in flight, at the first
// moment none is, or 10 ms after being put off while answers never stop; on real timers.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('quiet moments', () => {
  it('runs what was put off once no answer is in flight, not while one is', async () => {
    const quiet = new QuietMoments();
    const ran: string[] = [];
    let release!: () => void;
    const answer = quiet.during(
      () =>
        new Promise<void>((resolve) => {
          quiet.later(() => ran.push('record'));
          release = resolve;
        }),
    );
    await sleep(5);
    assert.deepEqual(ran, [], 'held while the answer is in flight');
    release();
    await answer;
    await sleep(5);
    assert.deepEqual(ran, ['record'], 'run once quiet');
  });

  it('runs it within 10 ms while answers keep coming, and at once when asked (shutdown)', async () => {
    const quiet = new QuietMoments();
    const ran: number[] = [];
    const started = performance.now();
    quiet.later(() => ran.push(performance.now() - started));
    // Answers back to back for 40 ms: never a quiet millisecond.
    while (performance.now() - started < 40) await quiet.during(() => sleep(0.2));
    assert.equal(ran.length, 1, 'run while busy');
    assert.ok(ran[0] < 40, `run after ${ran[0]} ms`);
    const later: string[] = [];
    quiet.later(() => later.push('now'));
    quiet.run();
    assert.deepEqual(later, ['now']);
  });
});
