import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import diagnostics from 'node:diagnostics_channel';
import { CompanyBatches } from '../src/services/calls/company-batches.js';
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

  it('runs it within 100 ms while answers keep coming, and at once when asked (shutdown)', async () => {
    const quiet = new QuietMoments();
    const ran: number[] = [];
    const started = performance.now();
    quiet.later(() => ran.push(performance.now() - started));
    // Answers back to back for 160 ms: never a quiet millisecond.
    while (performance.now() - started < 160) await quiet.during(() => sleep(0.2));
    assert.equal(ran.length, 1, 'run while busy');
    assert.ok(ran[0] >= 98 && ran[0] < 160, `run after ${ran[0]} ms`);
    const later: string[] = [];
    quiet.later(() => later.push('now'));
    quiet.run();
    assert.deepEqual(later, ['now']);
  });

  it('runs at most every 50 ms, so what is put off meanwhile runs together', async () => {
    const quiet = new QuietMoments();
    // Each run: when it began and what it ran (the tasks of one run run in one turn of the event loop).
    const runs: Array<{ at: number; names: string[] }> = [];
    let current: { at: number; names: string[] } | undefined;
    const started = performance.now();
    const putOff = (name: string) =>
      quiet.later(() => {
        if (!current) {
          runs.push((current = { at: performance.now() - started, names: [] }));
          queueMicrotask(() => {
            current = undefined;
          });
        }
        current.names.push(name);
      });
    putOff('first');
    await sleep(5);
    assert.deepEqual(
      runs.map((r) => r.names),
      [['first']],
      'the first runs at the first quiet moment',
    );
    // Three more while quiet, the event loop turning between them: held until 50 ms after that run, then run together.
    for (const name of ['a', 'b', 'c']) {
      putOff(name);
      await new Promise(setImmediate);
    }
    await sleep(60);
    assert.deepEqual(
      runs.map((r) => r.names),
      [['first'], ['a', 'b', 'c']],
    );
    assert.ok(runs[1].at - runs[0].at >= 48, `${runs[1].at - runs[0].at} ms after the run before`);
  });

  it("tells a profiler when a company's batch starts and ends being written, on its diagnostics channel", async () => {
    // A company id of this test's own: other files in this process may record calls meanwhile.
    const companyId = 900_000 + (process.pid % 1000);
    const heard: Array<{ phase: string; items: number; written: number }> = [];
    const written: string[] = [];
    const listener = (message: unknown) => {
      const m = message as { phase: string; companyId: number; items: number };
      if (m.companyId === companyId) heard.push({ phase: m.phase, items: m.items, written: written.length });
    };
    diagnostics.subscribe('switchboard:call-path:batch-write', listener);
    try {
      const batches = new CompanyBatches<string>(new QuietMoments(), {
        write: async (batch) => {
          await sleep(20);
          written.push(...batch);
        },
        failed: () => assert.fail('nothing fails here'),
      });
      for (const item of ['a', 'b', 'c']) batches.add(companyId, item);
      await batches.settled();
      assert.deepEqual(written, ['a', 'b', 'c']);
      assert.deepEqual(heard, [
        { phase: 'start', items: 3, written: 0 },
        { phase: 'end', items: 3, written: 3 },
      ]);
    } finally {
      diagnostics.unsubscribe('switchboard:call-path:batch-write', listener);
    }
  });
});
