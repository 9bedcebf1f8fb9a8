import { pino, type DestinationStream, type Logger as Pino } from 'pino';
import { createRequire } from 'node:module';
import type { LogLevel } from '../config/config.js';

// Logs through pino: one JSON object per line on stdout (`LOG_FORMAT=json`,
// the default), or lines for a person at a terminal (`LOG_FORMAT=pretty`).
// Secrets never reach a line: tokens, passwords, secrets and authorization
// headers are redacted wherever they appear in the fields, and database
// errors are logged without their SQL or the values in it.

export type LogFormat = 'json' | 'pretty';

// pino-pretty (and its 30 modules) only for a terminal that asks for it.
type PrettyOptions = import('pino-pretty').PrettyOptions;
type Prettify = (line: string) => string;
const prettifier = (options: PrettyOptions): Prettify =>
  (
    createRequire(import.meta.url)('pino-pretty') as { prettyFactory: (options: PrettyOptions) => Prettify }
  ).prettyFactory(options);

/**
 * Pretty lines are one line each: the fields follow the message on the same
 * line, and a request reads `GET /api/roles 200 3.1 ms` (an attempt
 * `webhook attempt 200 in 12 ms`), its method, path, status and time not
 * repeated after it.
 */
function prettyLines(colorize: boolean): Prettify {
  return prettifier({
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    messageKey: 'message',
    singleLine: true,
    ignore: 'pid,hostname,method,path,route,status,durationMs',
    messageFormat: (log: Record<string, unknown>) => {
      if (log.message === 'request') return `${log.method} ${log.path} ${log.status} ${log.durationMs} ms`;
      if (log.durationMs !== undefined)
        return `${log.message} ${log.statusCode ?? log.status ?? ''} in ${log.durationMs} ms`.replace('  ', ' ');
      return String(log.message ?? '');
    },
  });
}

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const SECRET_KEYS = [
  'password',
  'token',
  'secret',
  'authorization',
  'cookie',
  'apiKey',
  'authToken',
  'auth_token',
  'params',
  'bindings',
];
const REDACT = SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);

/**
 * `write` (tests): every line goes there instead of stdout.
 * `format`: pretty for a terminal, JSON otherwise.
 */
export function createLogger(level: LogLevel, write?: (line: string) => void, format: LogFormat = 'json'): Logger {
  let destination: DestinationStream;
  if (format === 'pretty') {
    const prettify = prettyLines(!write && process.stdout.isTTY);
    const out = write ?? ((line: string) => void process.stdout.write(line));
    destination = { write: (line: string) => out(prettify(line)) };
  } else {
    destination = write ? { write } : pino.destination({ dest: 1, sync: true });
  }
  const logger: Pino = pino(
    {
      level,
      base: undefined,
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    destination,
  );
  const emit = (lvl: 'debug' | 'info' | 'warn' | 'error') => (message: string, fields?: Record<string, unknown>) => {
    if (fields) logger[lvl](fields, message);
    else logger[lvl](message);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/**
 * What to log of an error: the one serializer every log line of an error
 * goes through. A database error (found anywhere in the error's chain of
 * causes) keeps its SQLSTATE, constraint, table and the server's message,
 * never the statement, its values, its detail or a stack (PostgreSQL's
 * detail repeats a row's values). Other errors keep their message, and their stack
 * only at LOG_LEVEL=debug (`withStack`).
 */
export function errorFields(error: unknown, withStack = false): Record<string, unknown> {
  const database = databaseErrorOf(error);
  if (database) {
    const { message, code, constraint, table } = database as Error & {
      code: string;
      constraint?: unknown;
      table?: unknown;
    };
    return {
      error: message,
      sqlState: code,
      ...(typeof constraint === 'string' ? { constraint } : {}),
      ...(typeof table === 'string' ? { table } : {}),
    };
  }
  if (!(error instanceof Error)) return { error: String(error) };
  return withStack ? { error: error.message, stack: error.stack } : { error: error.message };
}

const isSqlState = (code: unknown) => typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);

/** The PostgreSQL error behind `error` (itself, its originalError or its cause, a few levels deep), if any. */
function databaseErrorOf(error: unknown): Error | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (isSqlState((current as { code?: unknown }).code)) return current;
    current = (current as { originalError?: unknown }).originalError ?? (current as { cause?: unknown }).cause;
  }
  return undefined;
}
