import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { after, before, describe, it } from 'node:test';
import { RecordsThread } from '../src/platform/records-thread.js';
import { LocalCallRecords } from '../src/services/calls/call-records.js';
import { inboundCallback, newCallSid } from './helpers/callbacks.js';
import pg from 'pg';
import { adminQuery, startTestApp, type TestApp } from './helpers/app.js';
import { eventually } from './helpers/receiver.js';

// The call path's records written on a thread of their own (src/platform/records-thread.ts, docs/adr/0111): over
// HTTP, the provider's inbound calls answered at once and recorded by the thread, each with one call.started; the
// thread at a lower priority than the answers; a thread stopped outright while it holds records (terminated, as a
// crash would end it) replaced, its records written once each; after three such failures in a row, the records given
// up, each logged, and the next call served by a new thread; CALL_RECORDS=inline writing them on the event loop; and
// the records handed over before a stop written before the service stops.

let app: TestApp;
let stopped = false;
const logs: string[] = [];
let account: { sid: string; authToken: string; companyId: number };
let number: string;

async function inbound(sid = newCallSid()): Promise<string> {
  const response = await inboundCallback(app.url, account, number, sid);
  assert.equal(response.status, 200, await response.text());
  return sid;
}

/** How many of these calls are recorded with their decision, and how many call.started events they have. */
async function recorded(sids: string[]): Promise<{ calls: number; started: number }> {
  const [row] = await app.sql<{ calls: number; started: number }>(
    `SELECT (SELECT count(*)::int FROM calls WHERE provider_call_id = ANY($1) AND decided_by IS NOT NULL) AS calls,
       (SELECT count(*)::int FROM events e JOIN calls c ON e.data->>'call_id' = c.id::text
        WHERE e.type = 'call.started' AND c.provider_call_id = ANY($1)) AS started`,
    [sids],
  );
  return row;
}

const allRecorded = (sids: string[]) =>
  eventually(
    async () => {
      const now = await recorded(sids);
      return now.calls === sids.length ? now : undefined;
    },
    20_000,
    `${sids.length} calls recorded`,
  );

/** The records thread's handle in the service, and its thread (none until a record is handed over). */
const records = () => app.running.services.callRecords as RecordsThread;
const threadOf = () => (records() as unknown as { worker: Worker | undefined }).worker;

/** The nice value of each of this process's threads (the service runs in it). */
function niceOfThreads(): number[] {
  return readdirSync('/proc/self/task').flatMap((task) => {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // a thread that ended meanwhile
    }
  });
}

before(async () => {
  app = await startTestApp({ LOG_LEVEL: 'warn' }, { logs });
  account = await app.providerAccount();
  [{ phone_no: number }] = await app.sql<{ phone_no: string }>(
    'SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1',
    [account.companyId],
  );
});
after(async () => {
  if (!stopped) await app?.close();
  else await adminQuery(`DROP DATABASE IF EXISTS "${app.database}" WITH (FORCE)`);
});

/** The thread ended while idle: the next record starts a new one, which holds it while it starts (over a second). */
async function idle(): Promise<void> {
  await records().settled();
  await threadOf()?.terminate();
  assert.equal(threadOf(), undefined);
}

describe('the call records thread', () => {
  it('records the calls answered, each with one call.started, on a thread that yields the CPU', async () => {
    assert.ok(records() instanceof RecordsThread, 'an API process hands its records to the thread');
    assert.ok(threadOf(), 'started with the service');
    const sids = await Promise.all(Array.from({ length: 20 }, () => inbound()));
    assert.deepEqual(await allRecorded(sids), { calls: 20, started: 20 });
    assert.ok(threadOf(), 'the thread runs');
    const nice = niceOfThreads();
    assert.equal(nice.filter((n) => n === 10).length, 1, `one thread at WORKER_NICE (10): ${nice}`);
    // Asked again after it was recorded: the same decision, from the database, and no second record.
    await inbound(sids[0]);
    await records().settled();
    assert.deepEqual(await recorded(sids), { calls: 20, started: 20 });
  });

  it('replaces a thread stopped outright while it holds records: each is written once', async () => {
    await idle();
    assert.equal(logs.length, 0, logs.join('\n'));
    const sids = await Promise.all(Array.from({ length: 30 }, () => inbound()));
    const ended = threadOf()!;
    await ended.terminate();
    assert.deepEqual(await allRecorded(sids), { calls: 30, started: 30 });
    assert.notEqual(threadOf(), ended, 'a new thread');
    const replaced = logs.filter((line) =>
      line.includes('the call records thread stopped: its records go to a new one'),
    );
    assert.equal(replaced.length, 1, logs.join('\n'));
    assert.ok(JSON.parse(replaced[0]).records > 0, replaced[0]);
  });

  it('gives the records up, each logged, after three failures in a row; the next call starts a thread again', async () => {
    await idle();
    logs.length = 0;
    const sids = await Promise.all(Array.from({ length: 5 }, () => inbound()));
    // Each thread ended while it starts, before it writes anything: the first, and the two that take its records.
    for (let failure = 0; failure < 3; failure++) {
      const thread = threadOf()!;
      await thread.terminate();
      if (failure < 2) await eventually(async () => (threadOf() && threadOf() !== thread) || undefined, 5000);
    }
    await records().settled();
    const given = logs.filter((line) => line.includes('a call was answered but its record not written'));
    assert.deepEqual(given.map((line) => JSON.parse(line).callSid).sort(), [...sids].sort());
    assert.ok(logs.some((line) => line.includes('the call records thread failed again: its records are given up')));
    assert.equal(threadOf(), undefined, 'no thread until the next record');
    const next = await inbound();
    assert.deepEqual(await allRecorded([next]), { calls: 1, started: 1 });
  });

  it('writes the records handed over before a stop, before the service stops', async () => {
    await idle();
    const sids = await Promise.all(Array.from({ length: 10 }, () => inbound()));
    const thread = threadOf()!;
    await app.stop();
    stopped = true;
    assert.equal(thread.threadId, -1, 'the thread has ended');
    const client = new pg.Client({ connectionString: app.config.databaseUrl });
    await client.connect();
    try {
      const [row] = (
        await client.query(
          `SELECT count(*)::int AS calls, (SELECT count(*)::int FROM events WHERE type = 'call.started'
             AND data->>'call_id' IN (SELECT id::text FROM calls WHERE provider_call_id = ANY($1))) AS started
           FROM calls WHERE provider_call_id = ANY($1) AND decided_by IS NOT NULL`,
          [sids],
        )
      ).rows;
      assert.deepEqual(row, { calls: 10, started: 10 });
    } finally {
      await client.end();
    }
  });
  it('with CALL_RECORDS=inline, writes them on the event loop, with no thread', async () => {
    const inline = await startTestApp({ CALL_RECORDS: 'inline' });
    try {
      const records = inline.running.services.callRecords;
      assert.ok(records instanceof LocalCallRecords, 'written where they are answered');
      const own = await inline.providerAccount();
      const [{ phone_no: called }] = await inline.sql<{ phone_no: string }>(
        'SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1',
        [own.companyId],
      );
      const sid = newCallSid();
      const response = await inboundCallback(inline.url, own, called, sid);
      assert.equal(response.status, 200, await response.text());
      await records.settled();
      const [{ calls }] = await inline.sql<{ calls: number }>(
        'SELECT count(*)::int AS calls FROM calls WHERE provider_call_id = $1 AND decided_by IS NOT NULL',
        [sid],
      );
      assert.equal(calls, 1);
    } finally {
      await inline.close();
    }
  });
});
