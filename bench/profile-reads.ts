import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp } from '../test/helpers/app.js';
import { startWorker } from '../test/helpers/worker.js';
import { topFrames, topPlaces } from './cpu-profile.js';
import { otlpSink } from './tracing.bench.js';

// `node dist/bench/profile-reads.js [requests] [paths]`: the roles page (15
// of the company's roles) asked of one API process (production mode) over
// REST and over GraphQL, and a role renamed over REST (paths: a
// comma-separated choice of REST, GraphQL, rename), each in a process of its own under --cpu-prof and
// --trace-gc-nvp, 10 requests at a time after 500 unmeasured; prints each
// path's top frames by self time while it answered (idle and start-up left
// out) and the bytes it allocates per request
// (V8's `allocated` of each garbage collection during the measured requests,
// summed). For finding where a read's time goes, not a measurement to quote.
// With PROFILE_TRACED=1 the API process traces every request as tracing's
// default does, exporting over OTLP to a sink on loopback (what the tracing
// bench's "on" measures).

const total = Number(process.argv[2] ?? 5000);
const app = await startTestApp({ PROCESS_ROLE: 'api', LOG_LEVEL: 'silent' });
const sink = process.env.PROFILE_TRACED === '1' ? await otlpSink() : null;
try {
  const token = await app.login('owner@acme.test');
  const [acme] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
  await app.sql(
    `INSERT INTO roles (company_id, title, is_owner, created_at, updated_at)
    SELECT $1, 'Profiled role ' || g, false, now() - g * interval '1 minute', now() FROM generate_series(1, 200) g`,
    [acme.id],
  );
  const [renamed] = await app.sql("SELECT id FROM roles WHERE title = 'Profiled role 1'");
  let n = 0;
  const paths = {
    REST: (url: string) => fetch(`${url}/api/roles?per_page=15`, { headers: { authorization: `Bearer ${token}` } }),
    // The bench's write: a role renamed over REST (a new title each time).
    rename: (url: string) =>
      fetch(`${url}/api/roles/${renamed.id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Renamed ${n++}` }),
      }),
    GraphQL: (url: string) =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query:
            '{ roles(page: 1, perPage: 15) { records { id title created_at: createdAt updated_at: updatedAt } ' +
            'pagination { total current_page: currentPage per_page: perPage last_page: lastPage from to } } }',
        }),
      }),
  };
  const chosen = process.argv[3]?.split(',');
  for (const [name, ask] of Object.entries(paths).filter(([name]) => !chosen || chosen.includes(name))) {
    const dir = mkdtempSync(path.join(tmpdir(), 'sb-prof-'));
    process.stderr.write(`${name} profile: ${dir}\n`);
    const api = await startWorker(
      app,
      {
        NODE_ENV: 'production',
        SEED_DEMO: 'false',
        LOG_LEVEL: 'error',
        PROCESS_ROLE: 'api',
        DATABASE_POOL_SIZE: '10',
        ...(sink ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } : {}),
      },
      ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--trace-gc-nvp'],
    );
    const run = async (count: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (next++ < count) {
            const res = await ask(api.url);
            if (res.status !== 200) throw new Error(`${name}: ${res.status} ${await res.text()}`);
            await res.arrayBuffer();
          }
        }),
      );
    };
    await run(500);
    const from = api.output().length;
    const began = performance.now();
    await run(total);
    const seconds = (performance.now() - began) / 1000;
    const allocated = [
      ...api
        .output()
        .slice(from)
        .matchAll(/\ballocated=(\d+)/g),
    ].reduce((sum, m) => sum + Number(m[1]), 0);
    const exited = new Promise((resolve) => api.once('exit', resolve));
    api.kill('SIGTERM');
    await exited;
    process.stdout.write(
      `${name}: ${total} requests in ${seconds.toFixed(1)} s (${Math.round(total / seconds)}/s), ` +
        `${Math.round(allocated / total / 1024)} KiB allocated per request; top frames by self ` +
        `time:\n${topFrames(dir).join('\n')}\nself time by place:\n${topPlaces(dir).join('\n')}\n\n`,
    );
  }
} finally {
  await sink?.close();
  await app.close();
}
