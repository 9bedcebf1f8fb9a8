import pg from 'pg';

// `npm test` on a PostgreSQL that others use too: how many connections the
// run may take, how many it took, and the databases it leaves behind. Every
// connection of the run carries the application_name `sb_test_<run>` (set in
// TEST_DATABASE_URL, which the services' pools inherit), so they are counted
// apart from everyone else's.

/**
 * Connections one test file may hold at once, measured: its apps run with
 * DATABASE_POOL_SIZE 2 (the ORM, plain-read, committed-statement, claim
 * and job pools, and the LISTEN connection: about 11 for one app).
 */
export const PER_PROCESS = 12;
/** A file that runs an API and two worker processes on its database holds up to 30 (measured). */
export const PER_HEAVY = 32;
/** The runner's own (its lock, the sampler), the template build, and room for others to grow. */
export const RUNNER = 16;

export const applicationName = (runId: string) => `sb_test_${runId}`;

export function withApplicationName(url: string, runId: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('application_name', applicationName(runId));
  return parsed.toString();
}

export interface Budget {
  concurrency: number;
  budget: number;
  max: number;
  usedByOthers: number;
}

/** The connections `slots` files side by side may take at most, when `heavy` of the run's files are heavy (any of them may run at once). */
export const budgetFor = (slots: number, heavy: number) =>
  RUNNER + Math.min(slots, heavy) * PER_HEAVY + Math.max(0, slots - heavy) * PER_PROCESS;

/** How many files may run side by side within the connections the server has free; a line saying why not when none may. */
export async function planConcurrency(
  admin: pg.Client,
  wanted: number,
  heavy: number,
): Promise<Budget | { refusal: string }> {
  const { rows } = await admin.query(
    "SELECT current_setting('max_connections')::int AS max, (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int AS used",
  );
  const max = rows[0].max as number;
  const used = (rows[0].used as number) - 1; // this connection is the run's own
  const free = max - used;
  let concurrency = 0;
  while (concurrency < wanted && budgetFor(concurrency + 1, heavy) <= free) concurrency++;
  if (concurrency < 1) {
    const host = `${admin.host}:${admin.port}`;
    return {
      refusal:
        `PostgreSQL at ${host} has ${free} of ${max} connections free (${used} in use); the tests need at ` +
        `least ${budgetFor(1, heavy)}: free some, raise max_connections, or set TEST_DATABASE_URL to another server`,
    };
  }
  return { concurrency, budget: budgetFor(concurrency, heavy), max, usedByOthers: used };
}

/** Samples the run's connections every 200 ms; `stop()` gives the peak, and how many each database held at that moment. */
export function sampleConnections(
  url: string,
  runId: string,
): { stop: () => Promise<{ peak: number; byDatabase: string }> } {
  const client = new pg.Client({ connectionString: url });
  let peak = 0;
  let byDatabase = '';
  let stopped = false;
  const ready = client.connect().catch(() => undefined);
  const loop = (async () => {
    await ready;
    while (!stopped) {
      try {
        // Named, or on one of the run's databases (a library may connect without the name).
        const { rows } = await client.query<{ datname: string | null; n: number }>(
          'SELECT datname, count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 OR datname ' +
            "LIKE $2 ESCAPE '!' OR datname = $3 GROUP BY datname ORDER BY 2 DESC",
          [applicationName(runId), `sb!_test!_${runId}!_%`, `sb_template_${runId}`],
        );
        const total = rows.reduce((sum, row) => sum + row.n, 0);
        if (total > peak) {
          peak = total;
          byDatabase = rows.map((row) => `${row.datname ?? '(none)'} ${row.n}`).join(', ');
        }
      } catch {
        return; // the server went away: the tests will say so
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      await client.end().catch(() => undefined);
      return { peak, byDatabase };
    },
  };
}

/** Drops every database of this run that is still there (a failed or interrupted file leaves its own). */
export async function dropRunDatabases(url: string, runId: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT datname FROM pg_database WHERE datname LIKE $1 ESCAPE '!' OR datname = $2",
      [`sb!_test!_${runId}!_%`, `sb_template_${runId}`],
    );
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    return rows.map((row) => row.datname as string);
  } finally {
    await client.end();
  }
}

/** PostgreSQL's "too many clients" (its code 53300, never the digits inside a number such as a duration) in a line of test output. */
export const EXHAUSTED = /(?<![\d.])53300(?![\d.])|too many clients already|remaining connection slots are reserved/;
