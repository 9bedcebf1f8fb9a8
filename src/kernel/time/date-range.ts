import { addDays, startOfDay, today, type CivilDate } from './zoned.js';

// The AI dashboard's date ranges (docs/design.md §3), computed in the
// company's time zone; each a half-open interval [start, end).

export const DATE_RANGES = [
  'Today',
  'Yesterday',
  'Last 7 Days',
  'Last 14 Days',
  'Last 30 Days',
  'This Week Sun',
  'This Week Mon',
  'Last Week Sun',
  'Last Week Mon',
  'Last Business Week',
  'This Month',
  'Last Month',
  'Last Year',
] as const;

export type DateRangeName = (typeof DATE_RANGES)[number];

export interface Interval {
  start: Date;
  end: Date;
}

export function dateRange(name: DateRangeName, now: Date, timeZone: string): Interval {
  const day = today(now, timeZone);
  const at = (date: CivilDate) => startOfDay(date, timeZone);
  const weekStart = (first: 0 | 1) => addDays(day, -((day.weekday - first + 7) % 7));
  switch (name) {
    case 'Today':
      return { start: at(day), end: at(addDays(day, 1)) };
    case 'Yesterday':
      return { start: at(addDays(day, -1)), end: at(day) };
    case 'Last 7 Days':
      return { start: at(addDays(day, -6)), end: now };
    case 'Last 14 Days':
      return { start: at(addDays(day, -13)), end: now };
    case 'Last 30 Days':
      return { start: at(addDays(day, -29)), end: now };
    case 'This Week Sun':
      return { start: at(weekStart(0)), end: now };
    case 'This Week Mon':
      return { start: at(weekStart(1)), end: now };
    case 'Last Week Sun':
      return { start: at(addDays(weekStart(0), -7)), end: at(weekStart(0)) };
    case 'Last Week Mon':
      return { start: at(addDays(weekStart(1), -7)), end: at(weekStart(1)) };
    case 'Last Business Week': {
      const monday = addDays(weekStart(1), -7);
      return { start: at(monday), end: at(addDays(monday, 5)) };
    }
    case 'This Month':
      return { start: at({ ...day, day: 1 }), end: now };
    case 'Last Month': {
      const first = {
        year: day.month === 1 ? day.year - 1 : day.year,
        month: day.month === 1 ? 12 : day.month - 1,
        day: 1,
      };
      return { start: at(first), end: at({ ...day, day: 1 }) };
    }
    case 'Last Year':
      return { start: at({ year: day.year - 1, month: 1, day: 1 }), end: at({ year: day.year, month: 1, day: 1 }) };
  }
}

/** Custom whole days, inclusive of both. */
export function customRange(start: CivilDate, end: CivilDate, timeZone: string): Interval {
  return { start: startOfDay(start, timeZone), end: startOfDay(addDays(end, 1), timeZone) };
}
