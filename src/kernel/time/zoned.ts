// Calendar arithmetic in an IANA time zone with nothing but Intl.

export interface CivilDate {
  year: number;
  month: number; // 1-12
  day: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The wall clock of an instant in a zone. */
export function wallClock(instant: Date, timeZone: string) {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS.indexOf(parts.weekday), // 0 = Sunday
  };
}

/** Milliseconds the zone is ahead of UTC at an instant. */
function offsetAt(instant: number, timeZone: string): number {
  const w = wallClock(new Date(instant), timeZone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(instant / 1000) * 1000;
}

// When a civil day begins in a zone never changes within a process, and every
// request of the day asks for the same few: they are kept (a bounded number).
const MEMO_MAX = 10_000;
const dayStarts = new Map<string, number>();
const todays = new Map<string, { from: number; until: number; day: CivilDate & { weekday: number } }>();

/** The instant a civil date begins in a zone (00:00, or the first moment after a gap). */
export function startOfDay(date: CivilDate, timeZone: string): Date {
  const key = `${timeZone}|${date.year}-${date.month}-${date.day}`;
  let instant = dayStarts.get(key);
  if (instant === undefined) {
    if (dayStarts.size >= MEMO_MAX) dayStarts.clear();
    dayStarts.set(key, (instant = computeStartOfDay(date, timeZone)));
  }
  return new Date(instant);
}

function computeStartOfDay(date: CivilDate, timeZone: string): number {
  const local = Date.UTC(date.year, date.month - 1, date.day);
  let instant = local - offsetAt(local, timeZone);
  const second = local - offsetAt(instant, timeZone);
  if (second !== instant) instant = Math.min(instant, second);
  // When midnight itself does not exist (a DST gap at 00:00), the day starts at the gap's end.
  const check = wallClock(new Date(instant), timeZone);
  if (check.day !== date.day) instant = Math.max(instant, second);
  return instant;
}

/** Adds days to a civil date (calendar days, not 24-hour periods). */
export function addDays(date: CivilDate, days: number): CivilDate {
  const t = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

/** The civil date of an instant in a zone (with its weekday, 0 = Sunday). */
export function today(now: Date, timeZone: string): CivilDate & { weekday: number } {
  const t = now.getTime();
  const known = todays.get(timeZone);
  if (known && t >= known.from && t < known.until) return known.day;
  const w = wallClock(now, timeZone);
  const day = { year: w.year, month: w.month, day: w.day, weekday: w.weekday };
  if (todays.size >= MEMO_MAX) todays.clear();
  todays.set(timeZone, {
    from: startOfDay(day, timeZone).getTime(),
    until: startOfDay(addDays(day, 1), timeZone).getTime(),
    day,
  });
  return day;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "YYYY-MM-DD HH:mm:ss" on the zone's wall clock. */
export function formatWallClock(instant: Date, timeZone: string): string {
  const w = wallClock(instant, timeZone);
  return `${w.year}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;
}

/** Reads Y-m-d; undefined for anything that is not a real calendar date. */
export function parseCivilDate(text: string): CivilDate | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [year, month, day] = match.slice(1).map(Number);
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day)
    return undefined;
  return { year, month, day };
}
