import { startTestApp } from '../dist/test/helpers/app.js';
const app = await startTestApp({ LOG_LEVEL: 'silent' });
const owner = await app.login('owner@acme.test');
const res = await app.request('POST', '/api/webhooks', { token: owner, body: { title: 'Long', url: 'https://example.com/hook', events: ['agent.created'] } });
const id = res.body.data.id;
const [{ company }] = await app.sql('SELECT company_id AS company FROM webhooks WHERE id = $1', [id]);
for (const [span, count, step] of [[900, 90 * 96, '15 minutes'], [60, 25 * 60, '1 minute']])
  await app.sql(`INSERT INTO webhook_stats (webhook_id, span, bucket, company_id, success, server_error, failed, lt_50)
     SELECT $1, $2, date_bin(interval '${step}', now(), timestamptz '2000-01-01') - g * interval '${step}', $3, 1000, 3, 1, 1003
     FROM generate_series(0, $4 - 1) g`, [id, span, company, count]);
await app.sql('VACUUM ANALYZE webhook_stats');
const u = `${app.url}/api/webhooks/${id}/stats?bucket=minute&from=${new Date(Date.now() - 86_400_000 + 60_000).toISOString()}`;
const auth = { authorization: `Bearer ${owner}` };
const times = [];
for (let i = 0; i < 150; i++) { const t = performance.now(); await (await fetch(u, { headers: auth })).text(); times.push(performance.now() - t); }
times.sort((a, b) => a - b);
console.log('p50', times[75].toFixed(1));
await app.close();
