import jwt from 'jsonwebtoken';
import pg from 'pg';
import { TEST_JWT_SECRET } from '../test/helpers/app.js';
import { assertSameAnswer, listen, measure, plainApp, report, type TestApp } from './harness.js';

// The AI dashboard's first page of appointment calls for "Last 30 Days" in the
// company's time zone, over 50,000 calls: REST, /graphql, and plain SQL.

const CALLS = Number(process.env.BENCH_CALLS ?? 50_000);

export async function appointmentsBench(app: TestApp): Promise<void> {
  const token = await app.login('owner@acme.test');
  const [acme] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
  await app.sql(`INSERT INTO calls (company_id, agent_id, from_number, to_number, started_at, duration_seconds, status, direction, sentiment, recording_url, appointment_at, tags, custom_fields, created_at, updated_at)
    SELECT ?, (SELECT min(id) FROM agents WHERE company_id = ?) + g % 20, '+1212555' || lpad((g % 10000)::text, 4, '0'), '+1415555' || lpad((g % 9000)::text, 4, '0'),
      now() - (g % 400) * interval '1 day' - (g % 86400) * interval '1 second', g % 900, 'completed', 'inbound', 'neutral', NULL,
      CASE WHEN g % 3 = 0 THEN now() + interval '3 days' END, '[]', '{}', now(), now()
    FROM generate_series(1, ?) g`, [acme.id, acme.id, CALLS]);
  await app.sql('ANALYZE calls');

  const pool = new pg.Pool({ connectionString: app.running.databaseUrl, max: 10 });
  const plain = plainApp();
  plain.get('/appointments', async (req, res) => {
    const claims = jwt.verify((req.headers.authorization ?? '').slice(7), TEST_JWT_SECRET, { algorithms: ['HS256'] }) as { cid: number };
    const range = `WITH z AS (SELECT id, time_zone AS tz FROM companies WHERE id = $1),
      r AS (SELECT z.id, z.tz, (date_trunc('day', now() AT TIME ZONE z.tz) - interval '29 days') AT TIME ZONE z.tz AS start FROM z)`;
    const [rows, count] = await Promise.all([
      pool.query(`${range}
        SELECT c.id, to_char(c.started_at AT TIME ZONE r.tz, 'YYYY-MM-DD HH24:MI:SS') AS call_datetime, a.name AS agent_name,
               c.from_number, c.to_number, c.duration_seconds, to_char(c.appointment_at AT TIME ZONE r.tz, 'YYYY-MM-DD HH24:MI:SS') AS appointment,
               c.status, c.direction, c.sentiment, c.recording_url IS NOT NULL AS recording_available
        FROM calls c CROSS JOIN r LEFT JOIN agents a ON a.id = c.agent_id
        WHERE c.company_id = r.id AND c.appointment_at IS NOT NULL AND c.started_at >= r.start AND c.started_at < now()
        ORDER BY c.started_at DESC, c.id DESC LIMIT 15`, [claims.cid]),
      pool.query(`${range} SELECT count(*)::int AS total FROM calls c, r WHERE c.company_id = r.id AND c.appointment_at IS NOT NULL AND c.started_at >= r.start AND c.started_at < now()`, [claims.cid]),
    ]);
    const total = count.rows[0].total;
    res.json({
      success: true,
      data: {
        records: rows.rows.map((r) => ({
          id: r.id, call_datetime: r.call_datetime, agent_name: r.agent_name, numbers: { from: r.from_number, to: r.to_number },
          duration: r.duration_seconds, appointment: r.appointment, status: r.status, direction: r.direction, sentiment: r.sentiment,
          recording_available: r.recording_available,
        })),
        pagination: { total, current_page: 1, per_page: 15, last_page: Math.max(1, Math.ceil(total / 15)), from: rows.rowCount ? 1 : null, to: rows.rowCount || null },
      },
    });
  });
  const server = await listen(plain);
  const auth = { authorization: `Bearer ${token}` };
  const filter = '{ dateRange: "Last 30 Days" }';
  const query = `query { appointmentCalls(filter: ${filter}) { records { id callDatetime agentName numbers { from to } duration appointment status direction sentiment recordingAvailable } pagination { total } } }`;
  const rest = { name: 'REST', url: `${app.url}/api/ai/dashboard/appointments?date_range=Last%2030%20Days`, headers: auth };
  const baseline = { name: 'plain', url: `${server.url}/appointments`, headers: auth };
  await assertSameAnswer(rest, baseline);
  const results = await measure([
    rest,
    { name: 'GraphQL', url: `${app.url}/graphql`, method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query }) },
    baseline,
  ]);
  report('appointments', `Appointment calls, Last 30 Days, first page over ${CALLS.toLocaleString('en-US')} calls`, results);
  server.close();
  await pool.end();
}

