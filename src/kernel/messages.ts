// The words of every field error, in one place: the REST layer's type checks,
// the services' rules and the mapping of a database's unique violation all
// say the same thing the same way. A name is said in words (`per page`),
// whichever way it is spelled (`perPage`, `per_page`, `form_data.2`).

/** The 32-bit integer range GraphQL's Int holds. */
export const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 } as const;

export const label = (field: string) =>
  field
    .replace(/\.\d+/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase();

/** `a, b or c`, each value as JSON writes it. */
export const inWords = (values: readonly unknown[]) => {
  const written = values.map((value) => JSON.stringify(value));
  return written.length > 1 ? `${written.slice(0, -1).join(', ')} or ${written.at(-1)}` : (written[0] ?? 'nothing');
};

export const message = {
  required: (f: string) => `The ${label(f)} field is required.`,
  invalid: (f: string) => `The ${label(f)} field is invalid.`,
  string: (f: string) => `The ${label(f)} field must be a string.`,
  integer: (f: string) => `The ${label(f)} field must be an integer.`,
  number: (f: string) => `The ${label(f)} field must be a number.`,
  boolean: (f: string) => `The ${label(f)} field must be true or false.`,
  array: (f: string) => `The ${label(f)} field must be an array.`,
  object: (f: string) => `The ${label(f)} field must be an object.`,
  email: (f: string) => `The ${label(f)} field must be a valid email address.`,
  maxChars: (f: string, n: number) => `The ${label(f)} field must not be greater than ${n} characters.`,
  min: (f: string, n: number) => `The ${label(f)} field must be at least ${n}.`,
  /** A value outside a closed set: the value and the accepted ones, when known; else (an id not found) the field. */
  oneOf: (f: string, value?: unknown, accepted?: readonly unknown[]) =>
    accepted
      ? `The ${label(f)} field does not accept ${JSON.stringify(value)}; it accepts ${inWords(accepted)}.`
      : `The selected ${label(f)} does not exist.`,
  taken: (f: string) => `The ${label(f)} has already been taken.`,
  date: (f: string) => `The ${label(f)} field must match the format Y-m-d.`,
  nul: (f: string) => `The ${label(f)} field must not contain a NUL character.`,
  int32: (f: string) => `The ${label(f)} field must be between ${INT32.min} and ${INT32.max}.`,
  maxItems: (f: string, n: number) => `The ${label(f)} field must not have more than ${n} items.`,
  maxProperties: (f: string, n: number, got: number) =>
    `The ${label(f)} field must not have more than ${n} keys (got ${got}).`,
  e164: (f: string) => `The ${label(f)} field must be an E.164 number, such as +14155550100.`,
};
