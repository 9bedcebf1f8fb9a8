import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { readingPool } from '../src/db/reads.js';
import { adminUrl } from './helpers/app.js';

// The statements' pool (readingPool) reads timestamptz as Dates with pg's own parser. The truth is PostgreSQL's own:
// each value's text and its epoch, read in session time zones whose offsets have minutes (Kolkata, St John's) and
// seconds (Monrovia before 1972), with every length of fraction; civil dates and intervals stay PostgreSQL's text.

const ZONES = [
  'UTC',
  'Asia/Kolkata',
  'America/St_Johns',
  'America/Los_Angeles',
  'Africa/Monrovia',
  'Pacific/Kiritimati',
];
const VALUES = [
  '2026-11-22 23:14:26.81+00',
  '2026-11-22 23:14:26+00',
  '2026-03-08 10:00:00.123456+00',
  '2026-06-30 23:59:59.999999+00',
  '2000-02-29 12:00:00.1+00',
  '1969-12-31 23:59:58.9995+00',
  '1950-05-01 00:00:00.5+00',
  '1905-01-01 06:30:00+00',
];

describe('timestamps as PostgreSQL writes them', () => {
  const pool = readingPool(adminUrl(), 1);
  let client: pg.PoolClient;
  before(async () => {
    client = await pool.connect();
  });
  after(async () => {
    client.release();
    await pool.end();
  });

  it('reads every offset form and fraction to the millisecond PostgreSQL means', async () => {
    const forms = new Set<string>();
    for (const zone of ZONES) {
      await client.query(`SET TIME ZONE '${zone}'`);
      const { rows } = await client.query<{ text: string; ms: number; t: Date }>(
        'SELECT t, t::text AS text, floor(extract(epoch FROM t) * 1000)::float8 AS ms FROM unnest($1::timestamptz[]) AS t',
        [VALUES],
      );
      for (const { text, ms, t } of rows) {
        forms.add(text.replace(/^.*\d(?=[+-])/, '').replace(/\d/g, '9'));
        assert.ok(t instanceof Date, `${text} (${zone}) is read as a Date`);
        assert.equal(t.getTime(), ms, `${text} (${zone})`);
      }
    }
    // The session zones gave every offset form there is.
    assert.deepEqual([...forms].sort(), ['+99', '+99:99', '+99:99:99', '-99', '-99:99', '-99:99:99']);
  });

  it('reads a null as null, and civil dates and intervals as their text', async () => {
    await client.query("SET TIME ZONE 'UTC'");
    const { rows } = await client.query(
      "SELECT NULL::timestamptz AS none, DATE '2026-03-08' AS day, INTERVAL '1 day 02:00:00' AS span, " +
        "TIMESTAMP '2026-03-08 10:00:00.5' AS local",
    );
    assert.deepEqual(
      { ...rows[0], local: rows[0].local instanceof Date },
      { none: null, day: '2026-03-08', span: '1 day 02:00:00', local: true },
    );
  });

  it('reads and writes dates in answers as PostgreSQL writes them in UTC', async () => {
    await client.query("SET TIME ZONE 'UTC'");
    // Every day of four centuries' leap rules, at times through the day, and fractions of every length.
    const { rows } = await client.query<{ t: Date; text: string; iso: string }>(
      `SELECT t, t::text AS text, to_char(t, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS iso
       FROM (SELECT timestamptz '1600-01-01 00:00:00+00' + g * interval '1 day 1 hour 1 minute 1.001 second' AS t FROM generate_series(0, 200000, 7) g
             UNION ALL SELECT unnest($1::timestamptz[])) AS v`,
      [VALUES],
    );
    assert.ok(rows.length > 28_000);
    for (const { t, text, iso } of rows) assert.equal(t.toISOString(), iso, text);
  });
});
