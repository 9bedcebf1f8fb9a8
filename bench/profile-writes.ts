import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp } from '../test/helpers/app.js';
import { Receiver } from '../test/helpers/receiver.js';
import { startWorker } from '../test/helpers/worker.js';
import { topFrames } from './cpu-profile.js';

// `node dist/bench/profile-writes.js [mutations] [webhooks]`: one API process
// (production mode) under --cpu-prof answers `createAgent` mutations, 10 at a
// time, with that many webhooks subscribed to agent.created (no worker runs,
// so the profile is the write path and its outbox alone); prints the
// mutations per second and the top frames by self time. For finding where
// a write's time goes, not a measurement to quote.

const total = Number(process.argv[2] ?? 3000);
const webhooks = Number(process.argv[3] ?? 1);
const app = await startTestApp({ PROCESS_ROLE: 'api', LOG_LEVEL: 'silent' });
const receiver = await new Receiver().start();
const dir = mkdtempSync(path.join(tmpdir(), 'sb-prof-'));
try {
  const owner = await app.login('owner@acme.test');
  for (let i = 0; i < webhooks; i++)
    await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: `P ${i}`, url: `${receiver.url}/${i}`, events: ['agent.created'] },
    });
  const api = await startWorker(
    app,
    { NODE_ENV: 'production', SEED_DEMO: 'false', LOG_LEVEL: 'error', PROCESS_ROLE: 'api', DATABASE_POOL_SIZE: '10' },
    ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  );
  const query = 'mutation($n: String!) { createAgent(name: $n) { id } }';
  const mutate = async (i: number) => {
    const res = await fetch(`${api.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner}` },
      body: JSON.stringify({ query, variables: { n: `Profiled ${i}` } }),
    });
    if (res.status !== 200) throw new Error(`mutation failed: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  for (let i = 0; i < 200; i++) await mutate(-i);
  let next = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < total) await mutate(next++);
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  const exited = new Promise((resolve) => api.once('exit', resolve));
  api.kill('SIGTERM');
  await exited;
  process.stdout.write(
    `${total} mutations with ${webhooks} webhook(s) in ${seconds.toFixed(1)} s ` +
      `(${Math.round(total / seconds)}/s); top frames by self time:\n${topFrames(dir, 25).join('\n')}\n`,
  );
} finally {
  await receiver.close();
  await app.close();
}
