import { ConfigError } from './config-error.js';
import { corsOrigins } from './cors-origins.js';
import { dialerProblems, timeScale } from './dialer-settings.js';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  DEFAULT_TRACED_LIBRARIES,
  otlpProtocol,
  tracedLibraries,
  type OtlpProtocol,
  type TracedLibrary,
} from './otel-variables.js';

// The only module that reads process.env. Everything else receives a Config.

export type ProcessRole = 'all' | 'api' | 'worker';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  role: ProcessRole;
  dataDir: string;
  databaseUrl?: string;
  /** Connections per pool (DATABASE_POOL_SIZE): the units of work's and the statements'; the smaller pools take at most this many. */
  databasePoolSize: number;
  /** How long a pool's connection may sit idle before it is closed (DATABASE_IDLE_TIMEOUT); 0: kept until the process ends. */
  databaseIdleMs: number;
  mongodbUrl?: string;
  telcoBaseUrl?: string;
  telcoTimeoutMs: number;
  /** Where the provider and webhook receivers reach this service (callback URLs). */
  publicUrl: string;
  jwtSecret: string;
  appKey: Buffer;
  jwtTtlSeconds: number;
  /** How long a process keeps a token's viewer (changes are pushed, so this bounds only a missed notification); 0: not cached. */
  viewerCacheMs: number;
  /** Which addresses webhooks may reach: public only, loopback too (development's default), or every private range (WEBHOOK_ALLOW_PRIVATE=true). */
  webhookDestinations: 'public' | 'loopback' | 'private';
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  /** How long a decision endpoint's open circuit breaker gives the fallback before one call probes it. */
  decisionBreakerOpenMs: number;
  webhookRotationGraceMs: number;
  webhookRetentionMs: number;
  webhookDisableAfterMs: number;
  /** WEBHOOK_STATS: whether the engine keeps each webhook's record over time (default on). */
  webhookStats: boolean;
  /** DIALER: whether this process may lead the dialer (roles all and worker; default on). */
  dialer: boolean;
  /** DIALER_CALLS_PER_SECOND: calls a company's provider account places per second, at most. */
  dialerCallsPerSecond: number;
  /** DIALER_COMPANY_CONCURRENCY: calls of one company at once, over all its campaigns. */
  dialerCompanyConcurrency: number;
  /** DIALER_LEASE: how long a dial's claim holds before a dialer silent that long is taken to have stopped. */
  dialerLeaseMs: number;
  /** DIALER_TICK: how often the leading dialer plans. */
  dialerTickMs: number;
  /** TELCO_SIM_TIME_SCALE: the in-process simulator's call time, as a fraction of real time (1: real time). */
  telcoSimTimeScale: number;
  /** CALL_PATH_STATS: whether decision endpoints' and agent tools' record over time is kept (default on). */
  callPathStats: boolean;
  /** CALL_PATH_STATS_EVERY: how often the counts are added to the database. */
  callPathStatsEveryMs: number;
  /** CALL_PATH_CONTACTS: contacts an API process keeps in memory for the callers decisions name (0: none). */
  callPathContacts: number;
  webhookEndpointConcurrency: number;
  /** The ceiling the adaptive concurrency of one endpoint grows to. */
  webhookEndpointConcurrencyMax: number;
  /** WEBHOOK_SETTLE_HOLD_MS: how long a success waits at most for the results still on their way, to be recorded with them (0: never). */
  webhookSettleHoldMs: number;
  /** WEBHOOK_STREAM_WINDOW: under a stream of new deliveries, claims come at most once per this long (0: one per commit). */
  webhookStreamWindowMs: number;
  /** Attempts one worker process has in flight at most (each an open socket). */
  webhookWorkerSockets: number;
  /** WORKER_NICE: the scheduling priority a worker process lowers itself to, so API processes on its host go first. */
  workerNice: number;
  /** GC_THREADS: where V8 collects garbage, on the event loop's thread alone (main) or with helper threads (platform/gc-threads.ts). */
  gcThreads: 'main' | 'parallel';
  /** Origins allowed to call the APIs from a browser (CORS); empty: CORS off; ['*']: any origin, without credentials. */
  corsOrigins: string[];
  /**
   * OpenTelemetry traces (observability/tracing.ts): on when an OTLP endpoint
   * is given (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
   * and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none says no:
   * then the OTLP protocol (config/otel-variables.ts). The SDK reads the rest of the OTEL_* variables itself.
   */
  tracing: false | OtlpProtocol;
  /** The libraries instrumented when tracing is on (config/otel-variables.ts). */
  tracedLibraries: TracedLibrary[];
  /** When set, /metrics asks for it as a Bearer token. */
  metricsToken?: string;
  logLevel: LogLevel;
  /** `pretty` for a person at a terminal, `json` for machines; unset: pretty when stdout is a terminal. */
  logFormat?: 'json' | 'pretty';
  /** Proxy hops in front of the service whose X-Forwarded-For is trusted (0: none). */
  trustProxy: number;
  loginLimits: { perIp: RateWindow; perEmail: RateWindow };
  /** The API's budgets in points per window (src/limits/): per token and per company; null: that budget is off. */
  apiLimits: { perToken: RateWindow | null; perCompany: RateWindow | null };
  seedDemo: boolean;
}

export interface RateWindow {
  max: number;
  windowSeconds: number;
}

export { ConfigError };

type Env = Record<string, string | undefined>;

const DURATION = /^(\d+)(ms|s|m|h|d)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "30s" -> 30000; a bare number is seconds. */
export function parseDuration(text: string, variable: string): number {
  const match = DURATION.exec(text.trim());
  if (!match) throw new ConfigError(variable, `must be a duration such as 30s, 2m or 24h (got "${text}")`);
  return Number(match[1]) * UNIT_MS[match[2] ?? 's'];
}

const describe = (ms: number) =>
  ms === 0
    ? '0ms'
    : ms % 86_400_000 === 0
      ? `${ms / 86_400_000}d`
      : ms % 3_600_000 === 0
        ? `${ms / 3_600_000}h`
        : ms % 60_000 === 0
          ? `${ms / 60_000}m`
          : ms % 1000 === 0
            ? `${ms / 1000}s`
            : `${ms}ms`;

/** A duration within [min, max]. */

function duration(env: Env, name: string, fallback: string, min: number, max: number): number {
  const ms = parseDuration(env[name] || fallback, name);
  if (ms < min || ms > max)
    throw new ConfigError(name, `must be from ${describe(min)} to ${describe(max)} (got "${env[name]}")`);
  return ms;
}

/** TRUST_PROXY: false/0 (no proxy), true (one hop), or the number of proxy hops. */
function hops(env: Env, name: string): number {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false') return 0;
  if (raw === 'true') return 1;
  if (/^\d+$/.test(raw) && Number(raw) <= 10) return Number(raw);
  throw new ConfigError(name, `must be false, true or a number of proxy hops from 0 to 10 (got "${raw}")`);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false (got "${raw}")`);
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!values.includes(raw as T)) throw new ConfigError(name, `must be one of ${values.join(', ')} (got "${raw}")`);
  return raw as T;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}`);
  }
  return raw;
}

function rateWindow(env: Env, name: string, fallback: string): RateWindow {
  const raw = env[name] || fallback;
  const [max, per] = raw.split('/');
  if (!/^\d+$/.test(max ?? '') || !per) throw new ConfigError(name, `must look like 10/15m (got "${raw}")`);
  // Whole seconds: the window is what RateLimit-Policy's w= and Retry-After count in.
  const windowMs = parseDuration(per, name);
  if (
    Number(max) < 1 ||
    Number(max) > 100_000_000 ||
    windowMs < 1000 ||
    windowMs > 86_400_000 ||
    windowMs % 1000 !== 0
  ) {
    throw new ConfigError(name, `must allow 1 to 100000000 per whole seconds from 1s to 1d (got "${raw}")`);
  }
  return { max: Number(max), windowSeconds: windowMs / 1000 };
}

/**
 * Development secrets are generated once and kept in the data folder, so tokens
 * and encrypted ids stay valid across restarts. Production must supply them.
 */
function developmentSecrets(dataDir: string): { jwtSecret: string; appKey: string } {
  const file = path.join(dataDir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const secrets = { jwtSecret: randomBytes(32).toString('base64'), appKey: randomBytes(32).toString('base64') };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

function appKey(raw: string, variable: string): Buffer {
  const key = Buffer.from(raw.replace(/^base64:/, ''), 'base64');
  if (key.length !== 32) throw new ConfigError(variable, 'must be 32 bytes, base64-encoded');
  return key;
}

/**
 * Reads and checks every variable; a bad one does not hide the next: the
 * ConfigError lists one line per bad variable.
 */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const fail = (variable: string, problem: string): never => {
    throw new ConfigError(variable, problem);
  };
  const read = <T>(fn: () => T, fallback: T): T => {
    try {
      return fn();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
      return fallback;
    }
  };
  const nodeEnv = read(
    () => oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development'),
    'production',
  );
  const dataDir = path.resolve(env.DATA_DIR || '.data');
  let jwtSecret = env.JWT_SECRET;
  let key = env.APP_KEY;
  if (nodeEnv === 'production') {
    // Production never makes up secrets: they would differ per machine and vanish with the disk.
    if (!jwtSecret) problems.push('Invalid configuration: JWT_SECRET is required in production');
    if (!key) problems.push('Invalid configuration: APP_KEY is required in production');
  } else if (!jwtSecret || !key) {
    const generated = developmentSecrets(dataDir);
    jwtSecret ||= generated.jwtSecret;
    key ||= generated.appKey;
  }
  if (jwtSecret && jwtSecret.length < 32)
    problems.push('Invalid configuration: JWT_SECRET must be at least 32 characters');
  const appKeyBytes = key ? read(() => appKey(key!, 'APP_KEY'), Buffer.alloc(32)) : Buffer.alloc(32);

  const delays = read(() => {
    const list = (env.WEBHOOK_RETRY_DELAYS || '30s,2m,8m,32m')
      .split(',')
      .map((part) => parseDuration(part, 'WEBHOOK_RETRY_DELAYS'));
    if (list.length !== 4) throw new ConfigError('WEBHOOK_RETRY_DELAYS', 'must list four delays (attempts 2 to 5)');
    if (list.some((ms) => ms < 100 || ms > 7 * 86_400_000))
      throw new ConfigError('WEBHOOK_RETRY_DELAYS', 'must hold delays from 100ms to 7d');
    return list;
  }, [30_000, 120_000, 480_000, 1_920_000]);
  const port = read(() => integer(env, 'PORT', 3000, 0, 65535), 3000);
  const seedDemo = read(() => bool(env, 'SEED_DEMO', nodeEnv !== 'production'), false);
  if (seedDemo && nodeEnv === 'production')
    problems.push(
      'Invalid configuration: SEED_DEMO cannot be true in production (the demo logins share one known password)',
    );

  const config: Config = {
    nodeEnv,
    port,
    host: env.HOST || '0.0.0.0',
    role: read(() => oneOf(env, 'PROCESS_ROLE', ['all', 'api', 'worker'] as const, 'all'), 'all'),
    dataDir,
    databaseUrl: read(() => url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']), undefined),
    databasePoolSize: read(() => integer(env, 'DATABASE_POOL_SIZE', 10, 1, 100), 10),
    databaseIdleMs: read(() => duration(env, 'DATABASE_IDLE_TIMEOUT', '10m', 0, 3_600_000), 600_000),
    mongodbUrl: read(() => url(env, 'MONGODB_URL', ['mongodb:', 'mongodb+srv:']), undefined),
    telcoBaseUrl: read(() => url(env, 'TELCO_BASE_URL', ['http:', 'https:']), undefined),
    telcoTimeoutMs: read(() => duration(env, 'TELCO_TIMEOUT', '10s', 100, 120_000), 10_000),
    publicUrl: (
      read(() => url(env, 'PUBLIC_URL', ['http:', 'https:']), undefined) ?? `http://localhost:${port}`
    ).replace(/\/$/, ''),
    jwtSecret: jwtSecret ?? '',
    appKey: appKeyBytes,
    jwtTtlSeconds: read(() => duration(env, 'JWT_TTL', '24h', 60_000, 30 * 86_400_000), 86_400_000) / 1000,
    viewerCacheMs: read(() => duration(env, 'VIEWER_CACHE_TTL', '30s', 0, 3_600_000), 30_000),
    // A local try-out sends to a receiver on this machine (loopback only, no other private range);
    // deployments (production, and the tests) refuse internal addresses unless told.
    webhookDestinations: read(() => {
      if (env.WEBHOOK_ALLOW_PRIVATE === undefined || env.WEBHOOK_ALLOW_PRIVATE === '')
        return nodeEnv === 'development' ? 'loopback' : 'public';
      return bool(env, 'WEBHOOK_ALLOW_PRIVATE', false) ? 'private' : 'public';
    }, 'public' as const),
    webhookRetryDelaysMs: delays,
    webhookTimeoutMs: read(() => duration(env, 'WEBHOOK_TIMEOUT', '10s', 100, 60_000), 10_000),
    decisionBreakerOpenMs: read(() => duration(env, 'DECISION_BREAKER_OPEN', '30s', 100, 3_600_000), 30_000),
    webhookRotationGraceMs: read(
      () => duration(env, 'WEBHOOK_ROTATION_GRACE', '24h', 1000, 30 * 86_400_000),
      86_400_000,
    ),
    webhookRetentionMs: read(
      () => duration(env, 'WEBHOOK_RETENTION', '30d', 3_600_000, 365 * 86_400_000),
      30 * 86_400_000,
    ),
    webhookDisableAfterMs: read(
      () => duration(env, 'WEBHOOK_DISABLE_AFTER', '5d', 1000, 365 * 86_400_000),
      5 * 86_400_000,
    ),
    webhookStats: read(() => bool(env, 'WEBHOOK_STATS', true), true),
    dialer: read(() => bool(env, 'DIALER', true), true),
    dialerCallsPerSecond: read(() => integer(env, 'DIALER_CALLS_PER_SECOND', 1, 1, 100), 1),
    dialerCompanyConcurrency: read(() => integer(env, 'DIALER_COMPANY_CONCURRENCY', 50, 1, 1000), 50),
    dialerTickMs: read(() => duration(env, 'DIALER_TICK', '250ms', 20, 10_000), 250),
    dialerLeaseMs: read(() => duration(env, 'DIALER_LEASE', '1m', 1000, 3_600_000), 60_000),
    telcoSimTimeScale: read(() => timeScale(env.TELCO_SIM_TIME_SCALE), 1),
    callPathStats: read(() => bool(env, 'CALL_PATH_STATS', true), true),
    callPathStatsEveryMs: read(() => duration(env, 'CALL_PATH_STATS_EVERY', '5s', 50, 60_000), 5000),
    callPathContacts: read(() => integer(env, 'CALL_PATH_CONTACTS', 200_000, 0, 10_000_000), 200_000),
    webhookEndpointConcurrency: read(() => integer(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 4, 1, 100), 4),
    webhookEndpointConcurrencyMax: read(() => integer(env, 'WEBHOOK_ENDPOINT_CONCURRENCY_MAX', 64, 1, 1000), 64),
    webhookSettleHoldMs: read(() => integer(env, 'WEBHOOK_SETTLE_HOLD_MS', 3, 0, 1000), 3),
    webhookStreamWindowMs: read(() => duration(env, 'WEBHOOK_STREAM_WINDOW', '20ms', 0, 1000), 20),
    webhookWorkerSockets: read(() => integer(env, 'WEBHOOK_WORKER_SOCKETS', 1000, 1, 10_000), 1000),
    workerNice: read(() => integer(env, 'WORKER_NICE', 10, 0, 19), 10),
    gcThreads: read(() => oneOf(env, 'GC_THREADS', ['main', 'parallel'] as const, 'main'), 'main'),
    corsOrigins: read(() => corsOrigins(env.CORS_ORIGINS), []),
    tracing:
      Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) &&
      env.OTEL_SDK_DISABLED !== 'true' &&
      env.OTEL_TRACES_EXPORTER !== 'none' &&
      read(() => otlpProtocol(env, fail), 'http/protobuf' as const),
    tracedLibraries: read(() => tracedLibraries(env, fail), [...DEFAULT_TRACED_LIBRARIES]),
    metricsToken: read(() => {
      const token = env.METRICS_TOKEN;
      if (token && token.length < 16) throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters');
      return token || undefined;
    }, undefined),
    logLevel: read(
      () => oneOf(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'silent'] as const, 'info'),
      'info',
    ),
    logFormat:
      env.LOG_FORMAT === undefined || env.LOG_FORMAT === ''
        ? undefined
        : read(() => oneOf(env, 'LOG_FORMAT', ['json', 'pretty'] as const, 'json'), 'json'),
    trustProxy: read(() => hops(env, 'TRUST_PROXY'), 0),
    loginLimits: {
      perIp: read(() => rateWindow(env, 'LOGIN_LIMIT_PER_IP', '30/1m'), { max: 30, windowSeconds: 60 }),
      perEmail: read(() => rateWindow(env, 'LOGIN_LIMIT_PER_EMAIL', '10/15m'), { max: 10, windowSeconds: 900 }),
    },
    apiLimits: {
      perToken: read(
        () => (env.API_LIMIT_PER_TOKEN === 'off' ? null : rateWindow(env, 'API_LIMIT_PER_TOKEN', '1200/1m')),
        { max: 1200, windowSeconds: 60 },
      ),
      perCompany: read(
        () => (env.API_LIMIT_PER_COMPANY === 'off' ? null : rateWindow(env, 'API_LIMIT_PER_COMPANY', '6000/1m')),
        { max: 6000, windowSeconds: 60 },
      ),
    },
    seedDemo,
  };
  problems.push(...dialerProblems(config.dialerLeaseMs, config.telcoTimeoutMs));
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
