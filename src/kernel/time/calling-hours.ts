import { addDays, startOfDay, today, wallClock } from './zoned.js';

// A campaign's calling hours, kept in each lead's own time (docs/dialer.md): the lead may be called at an instant
// when, in every one of its zones, the day is a calling day and the wall clock is within [start, end). A lead whose
// number may be in several zones is called only in the hours open in all of them.

export interface CallingHours {
  /** Minutes after midnight: from (inclusive) and to (exclusive). */
  start: number;
  end: number;
  /** ISO weekdays: 1 is Monday, 7 Sunday. */
  days: readonly number[];
}

/** Whether a call may start at `at` in every zone. */
export function isOpen(at: Date, zones: readonly string[], hours: CallingHours): boolean {
  return zones.every((zone) => {
    const w = wallClock(at, zone);
    const minute = w.hour * 60 + w.minute;
    return hours.days.includes(w.weekday === 0 ? 7 : w.weekday) && minute >= hours.start && minute < hours.end;
  });
}

/** The instant a wall-clock time of a civil day happens in a zone (the first, when a clock change repeats it). */
function atMinute(day: { year: number; month: number; day: number }, minute: number, zone: string): Date {
  let at = startOfDay(day, zone).getTime() + minute * 60_000;
  // Across a clock change between midnight and the minute, the wall clock is an hour off: set it right.
  const w = wallClock(new Date(at), zone);
  const off = w.hour * 60 + w.minute - minute;
  if (off !== 0 && Math.abs(off) <= 120) at -= off * 60_000;
  return new Date(at);
}

/**
 * `now` when the lead may be called now; else the first instant within the next eight days when it may (an opening
 * of its hours in one of its zones that is open in all); null when the hours never open in all its zones together.
 */
export function nextOpening(now: Date, zones: readonly string[], hours: CallingHours): Date | null {
  if (isOpen(now, zones, hours)) return now;
  const candidates: Date[] = [];
  for (const zone of zones) {
    const first = today(now, zone);
    for (let d = 0; d <= 8; d++) {
      const opening = atMinute(addDays(first, d), hours.start, zone);
      if (opening > now) candidates.push(opening);
    }
  }
  candidates.sort((a, b) => a.getTime() - b.getTime());
  return candidates.find((at) => isOpen(at, zones, hours)) ?? null;
}
