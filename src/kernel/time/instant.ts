// A point in time as a provider or a client writes it: ISO 8601 / RFC 3339
// with a zone (Z or ±hh:mm), read strictly. Only years 1970 to 9999 are
// instants this product stores: anything else (year 0, expanded years like
// -010000 or +275760, 31 February) is not a date here, and never reaches
// the database.

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;
export const INSTANT_YEARS = { first: 1970, last: 9999 } as const;

/** The instant `text` names, or undefined when it is not a well-formed, in-range ISO 8601 date-time with a zone. */
export function parseInstant(text: string): Date | undefined {
  const match = ISO_INSTANT.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second = 0, offsetHours = 0, offsetMinutes = 0] = match
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part))) as number[];
  if (year < INSTANT_YEARS.first || year > INSTANT_YEARS.last || month < 1 || month > 12) return undefined;
  if (day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const instant = new Date(text);
  return Number.isNaN(instant.getTime()) ? undefined : instant;
}
