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
const auth = { authorization: `Bearer ${owner}` };
const url = (q) => `${app.url}/api/webhooks/${id}/stats?${q}`;
const windows = {
  minute: url('bucket=minute&from=' + new Date(Date.now() - 86_400_000 + 60_000).toISOString()),
  hour: url('bucket=hour&from=' + new Date(Date.now() - 30 * 86_400_000 + 3_600_000).toISOString()),
  day: url('bucket=day&from=' + new Date(Date.now() - 89 * 86_400_000).toISOString()),
};
for (const [name, u] of Object.entries(windows)) {
  const times = [];
  for (let i = 0; i < 60; i++) { const t = performance.now(); await (await fetch(u, { headers: auth })).text(); times.push(performance.now() - t); }
  times.sort((a, b) => a - b);
  console.log(name, 'p50', times[30].toFixed(1), 'p99', times[59].toFixed(1));
}
// The statements alone
const { webhookStatsRepository } = await import('../dist/src/repositories/webhook-stats.repository.js');
const ctx = app.running.services.contexts.forSystem(company, 'probe');
for (const [bucket, ms] of [['minute', 86_400_000 - 60_000], ['hour', 30 * 86_400_000 - 3_600_000], ['day', 89 * 86_400_000]]) {
  const to = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000);
  const from = new Date(to.getTime() - ms - (bucket === 'day' ? 86_400_000 : 0));
  const times = [], tt = [];
  for (let i = 0; i < 40; i++) {
    let t = performance.now();
    await webhookStatsRepository.series(ctx, { webhookId: id }, { bucket, from, to, timeZone: 'America/New_York' });
    times.push(performance.now() - t);
    t = performance.now();
    await webhookStatsRepository.totals(ctx, { companyId: company }, { bucket, from, to, timeZone: 'America/New_York' });
    tt.push(performance.now() - t);
  }
  times.sort((a, b) => a - b); tt.sort((a, b) => a - b);
  console.log('sql', bucket, 'series p50', times[20].toFixed(1), 'totals p50', tt[20].toFixed(1));
}
await app.close();
