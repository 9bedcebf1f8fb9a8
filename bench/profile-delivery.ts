import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { newDeliveryId, payloadText } from '../src/webhooks/payload.js';
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
  for (let i = 0; i < 20; i++) hooks.push((await app.request('POST', '/api/webhooks', { token: owner, body: { title: `P ${i}`, url: `${receiver.url}/${i}`, events: ['agent.created'] } })).body.data.id);
  const now = new Date();
  for (let start = 0; start < total; start += 500) {
    const rows: string[] = [];
    const values: unknown[] = [];
    for (let i = start; i < Math.min(start + 500, total); i++) {
      const webhookId = hooks[i % 20];
      rows.push(`(?, ?, ?, 'agent.created', 'pending', ?, 0, 5, ?, 'scheduled', ?)`);
      values.push(newDeliveryId(), webhookId, company, payloadText({ event: 'agent.created', occurredAt: now, webhookId, data: { agent_id: String(i) }, contact: null }), now, now);
    }
    await app.sql(`INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, attempt_count, final_attempt, next_attempt_at, next_trigger, created_at) VALUES ${rows.join(', ')}`, values);
  }
  const worker = await startWorker(app, { NODE_ENV: 'production', LOG_LEVEL: 'error' }, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  const began = Date.now();
  await eventually(async () => ((await app.sql<{ n: number }>("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'"))[0].n === total ? true : undefined), 300_000);
  const seconds = (Date.now() - began) / 1000;
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGTERM');
  await exited;
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
  const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>; samples: number[] };
  const counts = new Map<number, number>();
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  const byFrame = new Map<string, number>();
  for (const node of profile.nodes) {
    const n = counts.get(node.id) ?? 0;
    if (!n) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/')}:${lineNumber + 1}`;
    byFrame.set(key, (byFrame.get(key) ?? 0) + n);
  }
  const all = profile.samples.length;
  process.stdout.write(`${total} deliveries by one worker in ${seconds.toFixed(1)} s (${Math.round(total / seconds)}/s); top frames by self time of ${all} samples:\n`);
  for (const [key, n] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, 15)) process.stdout.write(`${((100 * n) / all).toFixed(1).padStart(5)}%  ${key}\n`);
} finally {
  await receiver.close();
  await app.close();
}
