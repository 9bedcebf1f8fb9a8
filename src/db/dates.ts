// Raw statements return timestamptz as PostgreSQL's text ("2026-11-22 23:14:26.81+00");
// these read it as a Date (a Date passes through).

/** The number written by the digits of `text` from `from` to `to`, or -1 when one is not a digit. */
function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * PostgreSQL's text of a timestamptz ("2026-11-22 23:14:26.81+00", "…+05:30",
 * "…-03:30:00") read by position: a page of rows reads many, and a regular
 * expression's match allocated more than the Date. Undefined for any other form.
 */
function readTimestamptz(text: string): Date | undefined {
  if (text.length < 22 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined;
  let at = 19;
  let ms = 0;
  if (text.charCodeAt(at) === 46) {
    let end = at + 1;
    while (end < text.length && end - at <= 6 && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
    if (end === at + 1) return undefined;
    ms = Math.floor((digits(text, at + 1, end) * 10 ** (6 - (end - at - 1))) / 1000);
    at = end;
  }
  const sign = text.charCodeAt(at) === 43 ? 1 : text.charCodeAt(at) === 45 ? -1 : 0;
  // The offset: hours, then minutes and seconds when given (":30", ":30:00").
  let offsetSeconds = digits(text, at + 1, at + 3) * 3600;
  at += 3;
  for (let unit = 60; unit >= 1 && at < text.length; unit /= 60, at += 3) {
    const part = text.charCodeAt(at) === 58 && at + 3 <= text.length ? digits(text, at + 1, at + 3) : -1;
    if (part < 0) return undefined;
    offsetSeconds += part * unit;
  }
  const year = digits(text, 0, 4), month = digits(text, 5, 7), day = digits(text, 8, 10);
  const hour = digits(text, 11, 13), minute = digits(text, 14, 16), second = digits(text, 17, 19);
  if (sign === 0 || at !== text.length || offsetSeconds < 0 || Math.min(year, month, day, hour, minute, second) < 0) return undefined;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - sign * offsetSeconds * 1000);
}

export function dbDate(value: Date | string): Date;
export function dbDate(value: Date | string | null | undefined): Date | null;
export function dbDate(value: Date | string | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  return readTimestamptz(value) ?? new Date(value.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00').replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
}
