import jwt from 'jsonwebtoken';
import pg from 'pg';
import { TEST_JWT_SECRET } from '../test/helpers/app.js';
import { assertSameAnswer, listen, measure, plainApp, report, type TestApp } from './harness.js';

// The same page of roles read three ways: REST (route table -> in-process
// GraphQL -> service -> ORM), /graphql, and a plain Express route running the
// equivalent SQL with pg.

export async function rolesBench(app: TestApp): Promise<void> {
  const token = await app.login('owner@acme.test');
  const [acme] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
  await app.sql(`INSERT INTO roles (company_id, title, is_owner, created_at, updated_at)
    SELECT ?, 'Bench role ' || g, false, now() - g * interval '1 minute', now() FROM generate_series(1, 200) g`, [acme.id]);

  const pool = new pg.Pool({ connectionString: app.running.databaseUrl, max: 10 });
  const plain = plainApp();
  plain.get('/roles', async (req, res) => {
    const claims = jwt.verify((req.headers.authorization ?? '').slice(7), TEST_JWT_SECRET, { algorithms: ['HS256'] }) as { cid: number };
    const perPage = 15;
    const [rows, count] = await Promise.all([
      pool.query('SELECT id, title, created_at, updated_at FROM roles WHERE company_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2', [claims.cid, perPage]),
      pool.query('SELECT count(*)::int AS total FROM roles WHERE company_id = $1', [claims.cid]),
    ]);
    const total = count.rows[0].total;
    res.json({
      success: true,
      data: {
        records: rows.rows.map((r) => ({ id: r.id, title: r.title, created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString() })),
        pagination: { total, current_page: 1, per_page: perPage, last_page: Math.max(1, Math.ceil(total / perPage)), from: rows.rowCount ? 1 : null, to: rows.rowCount || null },
      },
    });
  });
  const server = await listen(plain);
  const auth = { authorization: `Bearer ${token}` };
  const query = 'query { roles(page: 1, perPage: 15) { records { id title createdAt updatedAt } pagination { total currentPage perPage lastPage from to } } }';
  const rest = { name: 'REST', url: `${app.url}/api/roles`, headers: auth };
  const baseline = { name: 'plain', url: `${server.url}/roles`, headers: auth };
  await assertSameAnswer(rest, baseline);
  const results = await measure([
    rest,
    { name: 'GraphQL', url: `${app.url}/graphql`, method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query }) },
    baseline,
  ]);
  report('roles', 'Roles page (15 of 205 rows)', results);
  server.close();
  await pool.end();
}
