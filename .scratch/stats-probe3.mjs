import { startTestApp } from '../dist/test/helpers/app.js';
import { webhookStatsRepository } from '../dist/src/repositories/webhook-stats.repository.js';
import { statsWindow } from '../dist/src/kernel/time/stats-window.js';
const app = await startTestApp({ LOG_LEVEL: 'silent' });
const owner = await app.login('owner@acme.test');
const res = await app.request('POST', '/api/webhooks', { token: owner, body: { title: 'Long', url: 'https://example.com/hook', events: ['agent.created'] } });
const id = res.body.data.id;
const [{ company }] = await app.sql('SELECT company_id AS company FROM webhooks WHERE id = $1', [id]);
const HISTORY = 10_000_000;
for (const [span, count, step] of [[900, 90 * 96, '15 minutes'], [60, 25 * 60, '1 minute']])
  await app.sql(`INSERT INTO webhook_stats (webhook_id, span, bucket, company_id, success, server_error, failed, lt_50)
     SELECT $1, $2, date_bin(interval '${step}', now(), timestamptz '2000-01-01') - g * interval '${step}', $3, $4 / $5, 3, 1, $4 / $5 + 3
     FROM generate_series(0, $5 - 1) g`, [id, span, company, HISTORY, count]);
await app.sql('VACUUM ANALYZE webhook_stats');
const s = app.running.services;
const a = { bucket: 'day', from: new Date(Date.now() - 89 * 86_400_000).toISOString() };
const T = {};
const time = async (k, f) => { const t = performance.now(); const r = await f(); (T[k] ??= []).push(performance.now() - t); return r; };
for (let i = 0; i < 40; i++) {
  const ctx = s.contexts.forRequest('x', '127.0.0.1', owner);
  const w = await time('find', () => s.webhooks.find(ctx, String(id)));
  const { company: c } = await time('viewer', () => ctx.viewer());
  const win = await time('window', () => statsWindow(a, c.timeZone, new Date()));
  await time('series', () => webhookStatsRepository.series(ctx, { webhookId: w.id }, win.bucket, win));
  await time('totals', () => webhookStatsRepository.totals(ctx, { companyId: c.id }, win.bucket, win));
  await time('waiting', () => webhookStatsRepository.waiting(ctx, w.id));
}
for (const [k, v] of Object.entries(T)) { v.sort((a, b) => a - b); console.log(k, v[20].toFixed(2), v[39].toFixed(2)); }
console.log((await app.sql("EXPLAIN ANALYZE SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending'", [id])).map(r=>r['QUERY PLAN']).join('\n'));
await app.close();
