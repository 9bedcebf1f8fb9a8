import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { topFrames } from './cpu-profile.js';
import { queueDeliveries } from '../test/helpers/deliveries.js';
import { startTestApp } from '../test/helpers/app.js';
import { eventually, Receiver } from '../test/helpers/receiver.js';
import { startWorker } from '../test/helpers/worker.js';

// `node dist/bench/profile-delivery.js [deliveries]`: one worker process
// (production mode) delivers queued deliveries over 20 endpoints under
// --cpu-prof; prints the top frames by self time. For finding where a
// worker's time goes, not a measurement to quote.

const total = Number(process.argv[2] ?? 10_000);
const app = await startTestApp({ PROCESS_ROLE: 'api', LOG_LEVEL: 'silent' });
const receiver = await new Receiver().start();
const dir = mkdtempSync(path.join(tmpdir(), 'sb-prof-'));
try {
  const owner = await app.login('owner@acme.test');
  const hooks: number[] = [];
  for (let i = 0; i < 20; i++)
    hooks.push(
      (
        await app.request('POST', '/api/webhooks', {
          token: owner,
          body: { title: `P ${i}`, url: `${receiver.url}/${i}`, events: ['agent.created'] },
        })
      ).body.data.id,
    );
  await queueDeliveries(app, hooks, total, 'Profile');
  const worker = await startWorker(app, { NODE_ENV: 'production', LOG_LEVEL: 'error' }, [
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
  ]);
  const began = Date.now();
  await eventually(
    async () =>
      (await app.sql<{ n: number }>("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'"))[0]
        .n === total
        ? true
        : undefined,
    300_000,
  );
  const seconds = (Date.now() - began) / 1000;
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGTERM');
  await exited;
  process.stdout.write(
    `${total} deliveries by one worker in ${seconds.toFixed(1)} s (${Math.round(total / seconds)}/s); top frames by self time:\n${topFrames(dir).join('\n')}\n`,
  );
} finally {
  await receiver.close();
  await app.close();
}
