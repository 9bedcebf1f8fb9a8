// Why a start failed, as one line an operator can act on: the cause, the
// setting to fix, and an exit code of its own (sysexits.h), documented in the
// README. The stack only at LOG_LEVEL=debug.

export interface StartFailure {
  /** The sentence, naming the cause and what to change. */
  message: string;
  exitCode: number;
  /** The setting that fixes it, when one does. */
  variable?: string;
}

/** The exit codes, by cause. */
export const EXIT_CODES = {
  /** A configuration variable is invalid (one line per variable). */
  config: 78,
  /** The database host name does not resolve. */
  databaseHost: 68,
  /** The database server cannot be reached, does not answer in time, or has no such database; or the embedded PostgreSQL could not start. */
  databaseUnavailable: 69,
  /** The database refused the login (unknown role, wrong password, no permission). */
  databaseLogin: 77,
  /** The HTTP port cannot be listened on (in use, or not permitted). */
  listen: 71,
  /** Anything else: a defect; the line names it, LOG_LEVEL=debug shows the stack. */
  unexpected: 70,
} as const;

interface Coded {
  code?: unknown;
  errno?: unknown;
  syscall?: unknown;
  hostname?: unknown;
  address?: unknown;
  port?: unknown;
  errors?: unknown;
}

/** The errors in `error`'s chain (causes, originals, an AggregateError's members). */
function* chain(error: unknown, depth = 0): Generator<Error & Coded> {
  if (!(error instanceof Error) || depth > 5) return;
  yield error as Error & Coded;
  const { errors } = error as Coded;
  if (Array.isArray(errors)) for (const member of errors) yield* chain(member, depth + 1);
  yield* chain((error as { cause?: unknown }).cause, depth + 1);
  yield* chain((error as { originalError?: unknown }).originalError, depth + 1);
}

/** The server's own message of a PostgreSQL error, without the statement the ORM puts in front. */
const serverMessage = (error: Error) =>
  error.message.includes(' - ') ? error.message.slice(error.message.lastIndexOf(' - ') + 3) : error.message;

const where = (databaseUrl: string | undefined) => {
  if (!databaseUrl) return 'the embedded PostgreSQL';
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}:${url.port || 5432}`;
  } catch {
    return 'DATABASE_URL';
  }
};

export function describeStartFailure(
  error: unknown,
  settings: { databaseUrl?: string; host: string; port: number },
): StartFailure {
  const db = where(settings.databaseUrl);
  const fix = settings.databaseUrl ? 'check DATABASE_URL' : 'set DATABASE_URL to a PostgreSQL server';
  for (const link of chain(error)) {
    const code = typeof link.code === 'string' ? link.code : undefined;
    if (link.constructor?.name === 'EmbeddedPostgresError')
      return { message: link.message, exitCode: EXIT_CODES.databaseUnavailable, variable: 'DATABASE_URL' };
    if (link.syscall === 'listen' || code === 'EADDRINUSE') {
      const reason =
        code === 'EADDRINUSE'
          ? 'is already in use'
          : code === 'EACCES'
            ? 'may not be used by this user'
            : `cannot be listened on (${code ?? link.message})`;
      return {
        message: `Port ${settings.port} on ${settings.host} ${reason}: set PORT (or HOST) to a free one.`,
        exitCode: EXIT_CODES.listen,
        variable: 'PORT',
      };
    }
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      return {
        message: `The database host ${String(link.hostname ?? db)} is not known (${code}): ${fix}.`,
        exitCode: EXIT_CODES.databaseHost,
        variable: 'DATABASE_URL',
      };
    }
    if (
      code === 'ECONNREFUSED' ||
      code === 'ETIMEDOUT' ||
      code === 'EHOSTUNREACH' ||
      code === 'ENETUNREACH' ||
      code === 'ECONNRESET'
    ) {
      return {
        message: `The database at ${db} cannot be reached (${code}): is PostgreSQL running there? Otherwise ${fix}.`,
        exitCode: EXIT_CODES.databaseUnavailable,
        variable: 'DATABASE_URL',
      };
    }
    if (/timeout expired|Connection terminated/i.test(link.message) && !code) {
      return {
        message: `The database at ${db} did not answer (${link.message}): is PostgreSQL running there? Otherwise ${fix}.`,
        exitCode: EXIT_CODES.databaseUnavailable,
        variable: 'DATABASE_URL',
      };
    }
    if (code === '28000' || code === '28P01' || code === '42501') {
      return {
        message: `The database at ${db} refused the login: ${serverMessage(link)} (SQLSTATE ${code}): check the user and password in DATABASE_URL.`,
        exitCode: EXIT_CODES.databaseLogin,
        variable: 'DATABASE_URL',
      };
    }
    if (code === '3D000') {
      return {
        message: `The database at ${db} has no such database: ${serverMessage(link)} (SQLSTATE ${code}): create it, or check DATABASE_URL.`,
        exitCode: EXIT_CODES.databaseUnavailable,
        variable: 'DATABASE_URL',
      };
    }
    if (code && /^(08|53|57P0)/.test(code)) {
      return {
        message: `The database at ${db} refused the connection: ${serverMessage(link)} (SQLSTATE ${code}): ${fix}.`,
        exitCode: EXIT_CODES.databaseUnavailable,
        variable: 'DATABASE_URL',
      };
    }
  }
  const first = error instanceof Error ? error : new Error(String(error));
  return {
    message: `Unexpected error: ${serverMessage(first)} (run with LOG_LEVEL=debug for its stack).`,
    exitCode: EXIT_CODES.unexpected,
  };
}
