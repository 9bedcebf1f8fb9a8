import { startTestApp, databaseUrl } from '../dist/test/helpers/app.js';
import pg from 'pg';
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
const to = new Date(Math.floor(Date.now() / 60000) * 60000 + 60000);
const from = new Date(to.getTime() - 86_400_000);
await webhookStatsRepository.series(orig, { webhookId: id }, { bucket: 'minute', from, to, timeZone: 'UTC' });
const [text, params] = captured[0];
const client = new pg.Client({ connectionString: app.running.databaseUrl }); await client.connect();

const cols = text.match(/SELECT (.*) FROM webhook_stats/s)[1];
const where = text.match(/WHERE (.*) GROUP BY/s)[1];
const plainCols = cols.replace(/sum\(r\.(\w+)\)::int AS \w+/g, 'r.$1');
const variants = {
  A: text,
  B: `SELECT json_agg(g) AS rows FROM (${text}) g`,
  B2: `SELECT json_agg(json_build_array(${cols.split(', ').map((c, k) => k === 0 ? 'g.i' : 'g.' + c.split(' AS ')[1]).join(', ')})) AS rows FROM (${text}) g`,
  C: `SELECT ${plainCols} FROM webhook_stats r WHERE ${where}`,
  D: `SELECT json_agg(json_build_array(${plainCols.replace(' AS i', '')})) AS rows FROM webhook_stats r WHERE ${where}`,
};
for (const round of [1, 2]) for (const [name, q] of Object.entries(variants)) {
  const t = [];
  for (let i = 0; i < 30; i++) { const s = performance.now(); await client.query({ text: q, values: params }); t.push(performance.now() - s); }
  t.sort((a, b) => a - b); console.log(name, t[15].toFixed(2), t[29].toFixed(2));
}
await client.end();
await app.close();
