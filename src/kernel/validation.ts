import { ValidationError, type FieldErrors } from './errors.js';
import { message } from './messages.js';

// Field rules shared by the REST layer (types, presence) and the services
// (business rules). The services key their errors by the GraphQL names
// (`perPage`, `formData.2`); the REST layer renames each key to its row's
// field (`per_page`, `form_data.2`). Messages read the same in both: a name
// is said in words (`per page`), whichever way it is spelled.

export { INT32, label, message } from './messages.js';

/** A phone number in E.164: a plus, then up to 15 digits, the first not 0. */
export const E164 = /^\+[1-9]\d{1,14}$/;
/** An email address: a local part, @, and a domain with a dot (sign-in and contacts alike). */
export const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,}$/;

/** The bounds every input is held to (docs/design.md §3, "Limits"). */
export const LIMITS = {
  /** Items in any array of a request body. */
  arrayItems: 1000,
  /** Nesting of a free JSON value (trigger_config and the like). */
  jsonDepth: 20,
  /** Values (objects, arrays, scalars) in one free JSON value. */
  jsonNodes: 20_000,
  /** Search strings and other free text filters. */
  searchChars: 200,
} as const;

/**
 * What is wrong with a free JSON value, or undefined: too deep, too large, a
 * NUL in a string, an array over the item limit. Iterative, so no input can
 * exhaust the stack.
 */
export function jsonProblem(value: unknown): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]];
  let nodes = 0;
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (++nodes > LIMITS.jsonNodes) return `must not hold more than ${LIMITS.jsonNodes} values`;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return 'must not contain a NUL character';
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth > LIMITS.jsonDepth) return `must not be nested more than ${LIMITS.jsonDepth} levels deep`;
    if (Array.isArray(current)) {
      if (current.length > LIMITS.arrayItems) return `must not have arrays of more than ${LIMITS.arrayItems} items`;
      for (const item of current) stack.push([item, depth + 1]);
    } else {
      for (const [key, item] of Object.entries(current)) {
        if (key.includes('\u0000')) return 'must not contain a NUL character';
        stack.push([item, depth + 1]);
      }
    }
  }
  return undefined;
}

export class Rules {
  private readonly errors: FieldErrors = {};

  add(field: string, text: string): this {
    (this.errors[field] ??= []).push(text);
    return this;
  }

  has(field: string): boolean {
    return field in this.errors;
  }

  required(field: string, value: unknown): this {
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
      this.add(field, message.required(field));
    }
    return this;
  }

  maxChars(field: string, value: string | null | undefined, max: number): this {
    if (typeof value === 'string' && [...value].length > max) this.add(field, message.maxChars(field, max));
    return this;
  }

  oneOf(field: string, value: unknown, allowed: readonly unknown[]): this {
    if (value !== undefined && value !== null && !allowed.includes(value))
      this.add(field, message.oneOf(field, value, allowed));
    return this;
  }

  /** Throws the collected errors, if any. */
  check(): void {
    if (Object.keys(this.errors).length > 0) throw new ValidationError(this.errors);
  }
}
