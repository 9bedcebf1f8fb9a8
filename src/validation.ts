import { ValidationError, type FieldErrors } from './errors.js';

// Field rules shared by the REST layer (types, presence) and the services
// (business rules). Errors are keyed by the spec's field names in both
// interfaces; messages name the field the way the spec's clients expect.

export const label = (field: string) => field.replace(/_/g, ' ').replace(/\.\d+/g, '');

export const message = {
  required: (f: string) => `The ${label(f)} field is required.`,
  string: (f: string) => `The ${label(f)} field must be a string.`,
  integer: (f: string) => `The ${label(f)} field must be an integer.`,
  boolean: (f: string) => `The ${label(f)} field must be true or false.`,
  array: (f: string) => `The ${label(f)} field must be an array.`,
  object: (f: string) => `The ${label(f)} field must be an object.`,
  email: (f: string) => `The ${label(f)} field must be a valid email address.`,
  maxChars: (f: string, n: number) => `The ${label(f)} field must not be greater than ${n} characters.`,
  min: (f: string, n: number) => `The ${label(f)} field must be at least ${n}.`,
  oneOf: (f: string) => `The selected ${label(f)} is invalid.`,
  taken: (f: string) => `The ${label(f)} has already been taken.`,
  date: (f: string) => `The ${label(f)} field must match the format Y-m-d.`,
};

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
    if (value !== undefined && value !== null && !allowed.includes(value)) this.add(field, message.oneOf(field));
    return this;
  }

  /** Throws the collected errors, if any. */
  check(): void {
    if (Object.keys(this.errors).length > 0) throw new ValidationError(this.errors);
  }
}
