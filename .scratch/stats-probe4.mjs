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
const orig = app.running.services.contexts.forSystem(company, 'x');
const ctxProto = Object.getPrototypeOf(orig);
const origSql = ctxProto.sql;
let captured = [];
ctxProto.sql = function (text, params) { captured.push([text, params]); return origSql.call(this, text, params); };
const { webhookStatsRepository } = await import('../dist/src/repositories/webhook-stats.repository.js');
const to = process.argv[2] === 'minute' ? new Date(Math.floor(Date.now() / 60000) * 60000 + 60000) : new Date(Math.ceil(Date.now() / 86_400_000) * 86_400_000);
const from = process.argv[2] === 'minute' ? new Date(Math.floor(Date.now() / 60000) * 60000 - 86_400_000 + 60000) : new Date(to.getTime() - 90 * 86_400_000);
await webhookStatsRepository.series(orig, { webhookId: id }, { bucket: process.argv[2] ?? 'day', from, to, timeZone: 'America/New_York' });
const [text, params] = captured[0];
console.log((await app.sql('EXPLAIN (ANALYZE, BUFFERS) ' + text, params)).map(r=>r['QUERY PLAN']).join('\n'));
await app.close();
