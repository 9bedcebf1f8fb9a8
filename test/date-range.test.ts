import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { customRange, dateRange, DATE_RANGES, type DateRangeName } from '../src/kernel/time/date-range.js';
import { formatWallClock, parseCivilDate } from '../src/kernel/time/zoned.js';

const iso = (d: Date) => d.toISOString().replace('.000', '');
const range = (name: DateRangeName, now: string, tz: string) => {
  const r = dateRange(name, new Date(now), tz);
  return [iso(r.start), iso(r.end)];
};

describe('dashboard date ranges', () => {
  it('computes every range on a Saturday in UTC', () => {
    const now = '2026-11-21T15:00:00Z';
    const expected: Record<DateRangeName, [string, string]> = {
      Today: ['2026-11-21T00:00:00Z', '2026-11-22T00:00:00Z'],
      Yesterday: ['2026-11-20T00:00:00Z', '2026-11-21T00:00:00Z'],
      'Last 7 Days': ['2026-11-15T00:00:00Z', '2026-11-21T15:00:00Z'],
      'Last 14 Days': ['2026-11-08T00:00:00Z', '2026-11-21T15:00:00Z'],
      'Last 30 Days': ['2026-10-23T00:00:00Z', '2026-11-21T15:00:00Z'],
      'This Week Sun': ['2026-11-15T00:00:00Z', '2026-11-21T15:00:00Z'],
      'This Week Mon': ['2026-11-16T00:00:00Z', '2026-11-21T15:00:00Z'],
      'Last Week Sun': ['2026-11-08T00:00:00Z', '2026-11-15T00:00:00Z'],
      'Last Week Mon': ['2026-11-09T00:00:00Z', '2026-11-16T00:00:00Z'],
      'Last Business Week': ['2026-11-09T00:00:00Z', '2026-11-14T00:00:00Z'],
      'This Month': ['2026-11-01T00:00:00Z', '2026-11-21T15:00:00Z'],
      'Last Month': ['2026-10-01T00:00:00Z', '2026-11-01T00:00:00Z'],
      'Last Year': ['2025-01-01T00:00:00Z', '2026-01-01T00:00:00Z'],
    };
    assert.deepEqual(Object.keys(expected).sort(), [...DATE_RANGES].sort());
    for (const name of DATE_RANGES) assert.deepEqual(range(name, now, 'UTC'), expected[name], name);
  });

  it('starts weeks on the day itself when today is Sunday or Monday', () => {
    assert.deepEqual(range('This Week Sun', '2026-11-22T12:00:00Z', 'UTC'), [
      '2026-11-22T00:00:00Z',
      '2026-11-22T12:00:00Z',
    ]);
    assert.deepEqual(range('This Week Mon', '2026-11-22T12:00:00Z', 'UTC'), [
      '2026-11-16T00:00:00Z',
      '2026-11-22T12:00:00Z',
    ]);
    assert.deepEqual(range('This Week Mon', '2026-11-23T12:00:00Z', 'UTC'), [
      '2026-11-23T00:00:00Z',
      '2026-11-23T12:00:00Z',
    ]);
    assert.deepEqual(range('Last Week Mon', '2026-11-23T12:00:00Z', 'UTC'), [
      '2026-11-16T00:00:00Z',
      '2026-11-23T00:00:00Z',
    ]);
    assert.deepEqual(range('Last Business Week', '2026-11-23T12:00:00Z', 'UTC'), [
      '2026-11-16T00:00:00Z',
      '2026-11-21T00:00:00Z',
    ]);
  });

  it('crosses month and year edges, leap days included', () => {
    assert.deepEqual(range('Yesterday', '2026-01-01T10:00:00Z', 'UTC'), [
      '2025-12-31T00:00:00Z',
      '2026-01-01T00:00:00Z',
    ]);
    assert.deepEqual(range('Last Month', '2026-01-01T10:00:00Z', 'UTC'), [
      '2025-12-01T00:00:00Z',
      '2026-01-01T00:00:00Z',
    ]);
    assert.deepEqual(range('Last Year', '2026-01-01T10:00:00Z', 'UTC'), [
      '2025-01-01T00:00:00Z',
      '2026-01-01T00:00:00Z',
    ]);
    assert.deepEqual(range('Yesterday', '2028-03-01T10:00:00Z', 'UTC'), [
      '2028-02-29T00:00:00Z',
      '2028-03-01T00:00:00Z',
    ]);
    assert.deepEqual(range('Last Month', '2028-03-01T10:00:00Z', 'UTC'), [
      '2028-02-01T00:00:00Z',
      '2028-03-01T00:00:00Z',
    ]);
    assert.deepEqual(range('Last 7 Days', '2026-03-03T10:00:00Z', 'UTC'), [
      '2026-02-25T00:00:00Z',
      '2026-03-03T10:00:00Z',
    ]);
  });

  it('uses the company day, not the UTC day, behind UTC', () => {
    // 03:00 UTC on Saturday is Friday 22:00 in New York (EST, UTC-5).
    assert.deepEqual(range('Today', '2026-11-21T03:00:00Z', 'America/New_York'), [
      '2026-11-20T05:00:00Z',
      '2026-11-21T05:00:00Z',
    ]);
    assert.deepEqual(range('Today', '2026-11-21T05:00:00Z', 'Pacific/Honolulu'), [
      '2026-11-20T10:00:00Z',
      '2026-11-21T10:00:00Z',
    ]);
    assert.deepEqual(range('This Month', '2026-12-01T03:00:00Z', 'America/Chicago'), [
      '2026-11-01T05:00:00Z',
      '2026-12-01T03:00:00Z',
    ]);
  });

  it('uses the company day ahead of UTC', () => {
    // 20:00 UTC on Saturday is Sunday 05:00 in Tokyo (UTC+9).
    assert.deepEqual(range('Today', '2026-11-21T20:00:00Z', 'Asia/Tokyo'), [
      '2026-11-21T15:00:00Z',
      '2026-11-22T15:00:00Z',
    ]);
    assert.deepEqual(range('This Week Sun', '2026-11-21T20:00:00Z', 'Asia/Tokyo'), [
      '2026-11-21T15:00:00Z',
      '2026-11-21T20:00:00Z',
    ]);
    assert.deepEqual(range('Last Year', '2025-12-31T16:00:00Z', 'Asia/Tokyo'), [
      '2024-12-31T15:00:00Z',
      '2025-12-31T15:00:00Z',
    ]);
  });

  it('follows daylight-saving changes: a 23-hour and a 25-hour day', () => {
    const spring = dateRange('Today', new Date('2026-03-08T18:00:00Z'), 'America/New_York');
    assert.deepEqual([iso(spring.start), iso(spring.end)], ['2026-03-08T05:00:00Z', '2026-03-09T04:00:00Z']);
    assert.equal(spring.end.getTime() - spring.start.getTime(), 23 * 3_600_000);
    const fall = dateRange('Today', new Date('2026-11-01T18:00:00Z'), 'America/New_York');
    assert.deepEqual([iso(fall.start), iso(fall.end)], ['2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z']);
    assert.deepEqual(range('Last Week Sun', '2026-03-10T12:00:00Z', 'America/New_York'), [
      '2026-03-01T05:00:00Z',
      '2026-03-08T05:00:00Z',
    ]);
  });

  it('custom ranges are whole days, both ends included', () => {
    const r = customRange(parseCivilDate('2026-11-01')!, parseCivilDate('2026-11-03')!, 'America/New_York');
    assert.deepEqual([iso(r.start), iso(r.end)], ['2026-11-01T04:00:00Z', '2026-11-04T05:00:00Z']);
    const one = customRange(parseCivilDate('2026-06-15')!, parseCivilDate('2026-06-15')!, 'UTC');
    assert.deepEqual([iso(one.start), iso(one.end)], ['2026-06-15T00:00:00Z', '2026-06-16T00:00:00Z']);
  });

  it('reads only real Y-m-d dates and formats wall clocks', () => {
    for (const bad of ['2026-02-30', '2026-13-01', '2026-1-05', '05/01/2026', 'today', '2026-02-29']) {
      assert.equal(parseCivilDate(bad), undefined, bad);
    }
    assert.deepEqual(parseCivilDate('2028-02-29'), { year: 2028, month: 2, day: 29 });
    assert.equal(formatWallClock(new Date('2026-11-21T03:04:05Z'), 'America/New_York'), '2026-11-20 22:04:05');
  });
});
