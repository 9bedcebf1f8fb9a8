import { startTestApp } from '../dist/test/helpers/app.js';
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
const args = { day: { bucket: 'day', from: new Date(Date.now() - 89 * 86_400_000).toISOString() }, minute: { bucket: 'minute', from: new Date(Date.now() - 86_400_000 + 60_000).toISOString() } };
for (const [name, a] of Object.entries(args)) {
  const times = [], gq = [];
  for (let i = 0; i < 40; i++) {
    const ctx = s.contexts.forRequest('x', '127.0.0.1', owner);
    let t = performance.now();
    await s.webhookStats.forWebhook(ctx, String(id), a);
    times.push(performance.now() - t);
    t = performance.now();
    const r = await app.graphql(`query($id: ID!, $b: StatsBucket, $f: String) { webhookStats(id: $id, bucket: $b, from: $f) { bucket totals { attempts p50Ms } points { at attempts success clientError serverError timeout network brokerRefused interrupted failed successRate p50Ms p95Ms p99Ms } } }`, { id: String(id), b: a.bucket, f: a.from }, owner);
    gq.push(performance.now() - t);
  }
  times.sort((a, b) => a - b); gq.sort((a, b) => a - b);
  console.log(name, 'service p50', times[20].toFixed(1), 'p99', times[39].toFixed(1), 'graphql p50', gq[20].toFixed(1), 'p99', gq[39].toFixed(1));
}
await app.close();
