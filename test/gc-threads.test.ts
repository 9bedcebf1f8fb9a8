import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';

// Where V8 collects garbage (platform/gc-threads.ts, docs/adr/0108): a process that allocates as a busy service does,
// its CPU read per thread from /proc. Collected on the main thread, the other threads (V8's helpers, libuv's pool)
// stay nearly idle; collected in parallel, they take a large share of the work.

const run = promisify(execFile);
const module = pathToFileURL(path.resolve('dist/src/platform/gc-threads.js')).href;

/** A child that collects garbage as `threads` says, allocates, and reports its CPU ticks on the main thread and the others. */
async function ticks(threads: string): Promise<{ main: number; others: number }> {
  const script = `
    import { readdirSync, readFileSync } from 'node:fs';
    const { collectGarbageOn } = await import(${JSON.stringify(module)});
    collectGarbageOn(${JSON.stringify(threads)});
    const kept = [];
    for (let round = 0; round < 150; round++) {
      const rows = [];
      for (let i = 0; i < 100_000; i++) rows.push({ i, name: 'row ' + i });
      kept.push(rows);
      if (kept.length > 20) kept.shift();
    }
    const cpu = { main: 0, others: 0 };
    for (const task of readdirSync('/proc/self/task')) {
      const fields = readFileSync('/proc/self/task/' + task + '/stat', 'utf8').split(') ')[1].split(' ');
      cpu[task === String(process.pid) ? 'main' : 'others'] += Number(fields[11]) + Number(fields[12]);
    }
    console.log(JSON.stringify(cpu));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as { main: number; others: number };
}

describe('garbage collection threads', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  it('on the main thread, the collector leaves the other threads idle; in parallel it shares its work with them', async () => {
    const main = await ticks('main');
    const parallel = await ticks('parallel');
    const share = (t: { main: number; others: number }) => t.others / (t.main + t.others);
    assert.ok(share(main) < 0.1, `main: ${JSON.stringify(main)}`);
    assert.ok(
      share(parallel) > 3 * share(main),
      `parallel ${JSON.stringify(parallel)} against main ${JSON.stringify(main)}`,
    );
  });
});
