import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { topFrames } from './cpu-profile.js';
import { newDeliveryId, payloadText } from '../src/webhooks/config/payload.js';
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
  const [{ id: company }] = await app.sql<{ id: number }>("SELECT id FROM companies WHERE name = 'Acme Agency'");
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
  const now = new Date();
  for (let start = 0; start < total; start += 500) {
    const rows: string[] = [];
    const values: unknown[] = [];
    for (let i = start; i < Math.min(start + 500, total); i++) {
      const webhookId = hooks[i % 20];
      const base = values.length;
      rows.push(
        `($${base + 1}, $${base + 2}, $${base + 3}, 'agent.created', 'pending', $${base + 4}, 0, 5, $${base + 5}, 'scheduled', $${base + 6})`,
      );
      values.push(
        newDeliveryId(),
        webhookId,
        company,
        payloadText({
          event: 'agent.created',
          occurredAt: now,
          webhookId,
          data: { agent_id: String(i), name: `Agent ${i}`, active: true, online: false },
          contact: null,
        }),
        now,
        now,
      );
    }
    await app.sql(
      `INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, attempt_count, ` +
        `final_attempt, next_attempt_at, next_trigger, created_at) VALUES ${rows.join(', ')}`,
      values,
    );
  }
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
