import { message } from './messages.js';
import { GraphQLError } from 'graphql';

// The error model, defined once. Each class carries its GraphQL code and HTTP
// status; src/graphql/format-error.ts and src/http/edge.ts (sendError) map them.

export type FieldErrors = Record<string, string[]>;

export abstract class AppError extends GraphQLError {
  abstract readonly status: number;
  abstract readonly code: string;
  readonly headers: Record<string, string> = {};

  constructor(
    message: string,
    readonly fieldErrors?: FieldErrors,
  ) {
    super(message);
  }

  /** Extensions as GraphQL clients see them. */
  toExtensions(): Record<string, unknown> {
    return {
      code: this.code,
      http: { status: this.status },
      ...(this.fieldErrors ? { errors: this.fieldErrors } : {}),
    };
  }
}

export class ValidationError extends AppError {
  readonly status = 422;
  readonly code = 'BAD_USER_INPUT';

  constructor(errors: FieldErrors) {
    const messages = Object.values(errors).flat();
    const more = messages.length - 1;
    super(more > 0 ? `${messages[0]} (and ${more} more error${more > 1 ? 's' : ''})` : messages[0], errors);
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

export class UnauthenticatedError extends AppError {
  readonly status = 401;
  readonly code = 'UNAUTHENTICATED';
  constructor() {
    super('Unauthenticated.');
    this.headers['WWW-Authenticate'] = 'Bearer realm="switchboard"';
  }
}

export class InvalidCredentialsError extends AppError {
  readonly status = 404;
  readonly code = 'INVALID_CREDENTIALS';
  constructor() {
    super('invalid credentials.');
  }
}

export class ForbiddenError extends AppError {
  readonly status = 403;
  readonly code = 'FORBIDDEN';
  constructor(message = 'This action is unauthorized.') {
    super(message);
  }
}

export class NotFoundError extends AppError {
  readonly status = 404;
  readonly code = 'NOT_FOUND';
  constructor(what = 'Record') {
    super(`${what} not found.`);
  }
}

export class ConflictError extends AppError {
  readonly status = 409;
  readonly code = 'CONFLICT';
}

/** What was asked for existed once and is gone for good (an events cursor older than the retention). */
export class GoneError extends AppError {
  readonly status = 410;
  readonly code = 'GONE';
}

/** A business refusal without field errors (including the provider's own refusals, in its words). */
export class UnprocessableError extends AppError {
  readonly status = 422;
  readonly code = 'UNPROCESSABLE';
}

/** The telephony provider could not be reached or did not answer in time. */
export class ProviderUnavailableError extends AppError {
  readonly status = 502;
  readonly code = 'PROVIDER_UNAVAILABLE';
}

/**
 * The database cannot be reached for now (it is restarting, or refuses connections): a moment later the same request
 * may succeed, so the answer says when to try again rather than that the server failed.
 */
export class DatabaseUnavailableError extends AppError {
  readonly status = 503;
  readonly code = 'SERVICE_UNAVAILABLE';
  constructor(readonly cause: unknown) {
    super('The service is briefly unavailable. Try again in a moment.');
    this.headers['Retry-After'] = '1';
  }
}

/**
 * PostgreSQL out of connections (53300), shutting down or starting (57P01 to 57P03), a connection lost (class 08);
 * node-postgres's own words for a connection refused, dropped or not given in time.
 */
const unavailable = (error: { code?: unknown; message?: unknown }) =>
  (typeof error.code === 'string' && /^(53300|57P0[123]|08...|ECONNREFUSED|ECONNRESET)$/.test(error.code)) ||
  (typeof error.message === 'string' &&
    /^(Connection terminated|timeout exceeded when trying to connect)/.test(error.message));

export class RateLimitedError extends AppError {
  readonly status = 429;
  readonly code = 'RATE_LIMITED';
  constructor(
    readonly retryAfterSeconds: number,
    message = 'Too many attempts. Try again later.',
  ) {
    super(message);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
  toExtensions(): Record<string, unknown> {
    return { ...super.toExtensions(), retryAfter: this.retryAfterSeconds };
  }
}

/** Errors of the HTTP layer itself (before any operation runs). */
export class HttpError extends AppError {
  readonly code: string;
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.code = status === 400 ? 'BAD_REQUEST' : status === 413 ? 'PAYLOAD_TOO_LARGE' : 'HTTP_ERROR';
  }
}

/** Unique constraints that stand for a field rule: a race that breaks one reads as that field's 422. */
const UNIQUE_FIELDS: Record<string, string> = {
  roles_company_id_lower_title_unique: 'title',
  contacts_company_id_phone_number_unique: 'phoneNumber',
};

/** What a typed error stands for, where it stands for another (the database's own error behind a 503). */
export const causeOf = (error: AppError): unknown => (error instanceof DatabaseUnavailableError ? error.cause : error);

/** Finds our typed error behind a GraphQL error (resolvers' errors arrive wrapped). */
export function appErrorOf(error: unknown): AppError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof AppError) return current;
    // Two requests raced for the same unique value: the later one is told what the first took, never a server error.
    // PostgreSQL's unique violation (SQLSTATE 23505) names its constraint.
    if ((current as { code?: unknown }).code === '23505') {
      const field = UNIQUE_FIELDS[String((current as { constraint?: unknown }).constraint)];
      return field
        ? ValidationError.field(field, message.taken(field))
        : new ConflictError('The change conflicts with a record that already exists.');
    }
    if (unavailable(current as { code?: unknown })) return new DatabaseUnavailableError(current);
    current = (current as { originalError?: unknown }).originalError;
  }
  return undefined;
}
