import { pino, type DestinationStream, type Logger as Pino } from 'pino';
import { createRequire } from 'node:module';
import type { LogLevel } from '../config.js';

// Logs through pino: one JSON object per line on stdout (`LOG_FORMAT=json`,
// the default), or lines for a person at a terminal (`LOG_FORMAT=pretty`).
// Secrets never reach a line: tokens, passwords, secrets and authorization
// headers are redacted wherever they appear in the fields, and database
// errors are logged without their SQL or the values in it.

export type LogFormat = 'json' | 'pretty';

// pino-pretty (and its 30 modules) only for a terminal that asks for it.
type PrettyOptions = import('pino-pretty').PrettyOptions;
const pretty = (options: PrettyOptions) => (createRequire(import.meta.url)('pino-pretty') as (options: PrettyOptions) => DestinationStream)(options);

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const SECRET_KEYS = ['password', 'token', 'secret', 'authorization', 'cookie', 'apiKey', 'authToken', 'auth_token', 'params', 'bindings'];
const REDACT = SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);

/**
 * `write` (tests): every line goes there instead of stdout.
 * `format`: pretty for a terminal, JSON otherwise.
 */
export function createLogger(level: LogLevel, write?: (line: string) => void, format: LogFormat = 'json'): Logger {
  const destination: DestinationStream = write
    ? { write }
    : format === 'pretty'
      ? pretty({ colorize: process.stdout.isTTY, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', messageKey: 'message', sync: true })
      : pino.destination({ dest: 1, sync: true });
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
 * What to log of an error. A database error keeps its SQLSTATE and the
 * server's message, never the statement or its values (the ORM puts the SQL,
 * values inlined, in front of the message; PostgreSQL's detail repeats them).
 */
export function errorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: String(error) };
  const sqlState = (error as { code?: unknown }).code;
  if (typeof sqlState === 'string' && /^[0-9A-Z]{5}$/.test(sqlState)) {
    const message = error.message.includes(' - ') ? error.message.slice(error.message.lastIndexOf(' - ') + 3) : error.message;
    return { error: message, sqlState };
  }
  return { error: error.message, stack: error.stack };
}
