// Raw statements return timestamptz as PostgreSQL's text ("2026-11-22 23:14:26.81+00");
// these read it as a Date (a Date passes through).

// "2026-11-22 23:14:26.81+00", "…+05:30", "…-03:30:00": read field by field (a list of rows reads many).
const PG_TIMESTAMPTZ = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?$/;

export function dbDate(value: Date | string): Date;
export function dbDate(value: Date | string | null | undefined): Date | null;
export function dbDate(value: Date | string | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  const m = PG_TIMESTAMPTZ.exec(value);
  if (m) {
    const ms = m[7] ? Math.floor(Number(m[7].padEnd(6, '0')) / 1000) : 0;
    const offset = (Number(m[9]) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0)) * 1000 * (m[8] === '-' ? -1 : 1);
    return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms) - offset);
  }
  return new Date(value.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00').replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
}
