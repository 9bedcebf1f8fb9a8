// Raw statements return timestamptz as PostgreSQL's text ("2026-11-22 23:14:26.81+00");
// these read it as a Date (a Date passes through).

export function dbDate(value: Date | string): Date;
export function dbDate(value: Date | string | null | undefined): Date | null;
export function dbDate(value: Date | string | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  return new Date(value.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00').replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
}
