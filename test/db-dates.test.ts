import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { dbDate } from '../src/db/reads.js';
import { adminUrl } from './helpers/app.js';

// Raw statements hand timestamptz over as PostgreSQL's text; dbDate reads it.
// The truth is PostgreSQL's own: each value's text and its epoch, read in
// session time zones whose offsets have minutes (Kolkata, St John's) and
// seconds (Monrovia before 1972), with every length of fraction.

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
  const client = new pg.Client({ connectionString: adminUrl() });
  before(() => client.connect());
  after(() => client.end());

  it('reads every offset form and fraction to the millisecond PostgreSQL means', async () => {
    const forms = new Set<string>();
    for (const zone of ZONES) {
      await client.query(`SET TIME ZONE '${zone}'`);
      const { rows } = await client.query<{ text: string; ms: number }>(
        'SELECT t::text AS text, floor(extract(epoch FROM t) * 1000)::float8 AS ms FROM unnest($1::timestamptz[]) AS t',
        [VALUES],
      );
      for (const { text, ms } of rows) {
        forms.add(text.replace(/^.*\d(?=[+-])/, '').replace(/\d/g, '9'));
        assert.equal(dbDate(text).getTime(), ms, `${text} (${zone})`);
      }
    }
    // The session zones gave every offset form there is.
    assert.deepEqual([...forms].sort(), ['+99', '+99:99', '+99:99:99', '-99', '-99:99', '-99:99:99']);
  });

  it('passes a Date and null through, and still reads other forms', () => {
    const date = new Date('2026-11-22T23:14:26.810Z');
    assert.equal(dbDate(date), date);
    assert.equal(dbDate(null), null);
    assert.equal(dbDate(undefined), null);
    assert.equal(dbDate('2026-11-22T23:14:26.810Z').toISOString(), '2026-11-22T23:14:26.810Z');
    assert.equal(dbDate('2026-11-22 23:14:26+0530').toISOString(), '2026-11-22T17:44:26.000Z');
  });

  it('reads and writes dates in answers as PostgreSQL writes them in UTC', async () => {
    await client.query("SET TIME ZONE 'UTC'");
    // Every day of four centuries' leap rules, at times through the day, and fractions of every length.
    const { rows } = await client.query<{ text: string; iso: string }>(
      `SELECT t::text AS text, to_char(t, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS iso
       FROM (SELECT timestamptz '1600-01-01 00:00:00+00' + g * interval '1 day 1 hour 1 minute 1.001 second' AS t FROM generate_series(0, 200000, 7) g
             UNION ALL SELECT unnest($1::timestamptz[])) AS v`,
      [VALUES],
    );
    assert.ok(rows.length > 28_000);
    for (const { text, iso } of rows) assert.equal(dbDate(text).toISOString(), iso, text);
  });
});
