import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

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
  mongodbUrl?: string;
  telcoBaseUrl?: string;
  telcoTimeoutMs: number;
  /** Where the provider and webhook receivers reach this service (callback URLs). */
  publicUrl: string;
  jwtSecret: string;
  appKey: Buffer;
  jwtTtlSeconds: number;
  webhookAllowPrivate: boolean;
  webhookRetryDelaysMs: number[];
  logLevel: LogLevel;
  trustProxy: boolean;
  loginLimits: { perIp: RateWindow; perEmail: RateWindow };
  seedDemo: boolean;
}

export interface RateWindow {
  max: number;
  windowSeconds: number;
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

const DURATION = /^(\d+)(ms|s|m|h|d)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "30s" -> 30000; a bare number is seconds. */
export function parseDuration(text: string, variable: string): number {
  const match = DURATION.exec(text.trim());
  if (!match) throw new ConfigError(variable, `must be a duration such as 30s, 2m or 24h (got "${text}")`);
  return Number(match[1]) * UNIT_MS[match[2] ?? 's'];
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
  return { max: Number(max), windowSeconds: parseDuration(per, name) / 1000 };
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

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const dataDir = path.resolve(env.DATA_DIR || '.data');
  let jwtSecret = env.JWT_SECRET;
  let key = env.APP_KEY;
  if (nodeEnv === 'production') {
    if (!jwtSecret) throw new ConfigError('JWT_SECRET', 'is required in production');
    if (!key) throw new ConfigError('APP_KEY', 'is required in production');
  } else if (!jwtSecret || !key) {
    const generated = developmentSecrets(dataDir);
    jwtSecret ||= generated.jwtSecret;
    key ||= generated.appKey;
  }
  if (jwtSecret.length < 32) throw new ConfigError('JWT_SECRET', 'must be at least 32 characters');

  const delays = (env.WEBHOOK_RETRY_DELAYS || '30s,2m,8m,32m')
    .split(',')
    .map((part) => parseDuration(part, 'WEBHOOK_RETRY_DELAYS'));
  if (delays.length !== 4) throw new ConfigError('WEBHOOK_RETRY_DELAYS', 'must list four delays (attempts 2 to 5)');

  return {
    nodeEnv,
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '0.0.0.0',
    role: oneOf(env, 'PROCESS_ROLE', ['all', 'api', 'worker'] as const, 'all'),
    dataDir,
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    mongodbUrl: url(env, 'MONGODB_URL', ['mongodb:', 'mongodb+srv:']),
    telcoBaseUrl: url(env, 'TELCO_BASE_URL', ['http:', 'https:']),
    telcoTimeoutMs: parseDuration(env.TELCO_TIMEOUT || '10s', 'TELCO_TIMEOUT'),
    publicUrl: (url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${integer(env, 'PORT', 3000, 0, 65535)}`).replace(/\/$/, ''),
    jwtSecret,
    appKey: appKey(key, 'APP_KEY'),
    jwtTtlSeconds: parseDuration(env.JWT_TTL || '24h', 'JWT_TTL') / 1000,
    webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    webhookRetryDelaysMs: delays,
    logLevel: oneOf(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'silent'] as const, 'info'),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    loginLimits: {
      perIp: rateWindow(env, 'LOGIN_LIMIT_PER_IP', '30/1m'),
      perEmail: rateWindow(env, 'LOGIN_LIMIT_PER_EMAIL', '10/15m'),
    },
    seedDemo: bool(env, 'SEED_DEMO', true),
  };
}
