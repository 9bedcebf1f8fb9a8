import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp } from './helpers/app.js';
import { sleep } from './helpers/receiver.js';

// DATABASE_IDLE_TIMEOUT: how long a pool's connection may sit idle before the process closes it (docs/operations.md).
// An API process (it runs no jobs, whose scan would keep a connection busy) takes a burst of writes; the PostgreSQL
// sessions the burst opened are looked for again after a wait longer than the short timeout.

/** The process's sessions on its database: all but the observer's own. */
const sessions = async (observer: pg.Client) =>
  new Set(
    (
      await observer.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      )
    ).rows.map((row) => row.pid),
  );

/** The sessions open after a burst of eight writes at once, those the burst opened, and those still open `waitMs` later. */
async function burst(
  idleTimeout: string,
  waitMs: number,
): Promise<{ after: number[]; opened: number[]; later: number[] }> {
  const app = await startTestApp({ PROCESS_ROLE: 'api', DATABASE_IDLE_TIMEOUT: idleTimeout });
  const observer = new pg.Client({ connectionString: app.running.databaseUrl });
  try {
    await observer.connect();
    const owner = await app.login('owner@acme.test');
    await sleep(1500);
    const before = await sessions(observer);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        app.request('POST', '/api/agents', { token: owner, body: { name: `Burst ${i}` } }),
      ),
    );
    assert.deepEqual(
      answers.map((res) => res.status),
      Array(8).fill(201),
    );
    const after = await sessions(observer);
    await sleep(waitMs);
    const later = await sessions(observer);
    return { after: [...after], opened: [...after].filter((pid) => !before.has(pid)), later: [...later] };
  } finally {
    await observer.end();
    await app.close();
  }
}

describe('the pools’ idle connections (DATABASE_IDLE_TIMEOUT)', () => {
  it('are closed once idle for the timeout', async () => {
    const { opened, later } = await burst('1s', 2500);
    assert.ok(opened.length > 0, 'the burst opened sessions (the pools had closed theirs)');
    assert.deepEqual(
      opened.filter((pid) => later.includes(pid)),
      [],
    );
  });

  it('are kept while the timeout has not passed', async () => {
    // Past pg-pool's own default of 10 s.
    const { after, later } = await burst('10m', 11_000);
    assert.ok(after.length > 1, 'the process holds sessions beside its listener');
    assert.deepEqual(
      after.filter((pid) => !later.includes(pid)),
      [],
    );
  });
});
