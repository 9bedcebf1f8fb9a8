import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig, parseDuration } from '../src/config/config.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
const base = { JWT_SECRET: 'x'.repeat(40), APP_KEY: KEY, DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sb-config-')) };

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig(base);
    assert.equal(config.port, 3000);
    assert.equal(config.role, 'all');
    assert.equal(config.jwtTtlSeconds, 86_400);
    assert.equal(config.databaseIdleMs, 600_000);
    assert.equal(loadConfig({ ...base, DATABASE_IDLE_TIMEOUT: '0' }).databaseIdleMs, 0);
    assert.deepEqual(config.webhookRetryDelaysMs, [30_000, 120_000, 480_000, 1_920_000]);
    // A local try-out (development, the default) may send to this machine's loopback; production and the tests may not.
    assert.equal(config.webhookDestinations, 'loopback');
    assert.equal(loadConfig({ ...base, NODE_ENV: 'production' }).webhookDestinations, 'public');
    assert.equal(loadConfig({ ...base, NODE_ENV: 'test' }).webhookDestinations, 'public');
    assert.equal(
      loadConfig({ ...base, NODE_ENV: 'development', WEBHOOK_ALLOW_PRIVATE: 'false' }).webhookDestinations,
      'public',
    );
    assert.equal(
      loadConfig({ ...base, NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookDestinations,
      'private',
    );
    assert.equal(config.webhookEndpointConcurrency, 4);
    assert.equal(config.webhookEndpointConcurrencyMax, 64);
    assert.equal(config.webhookWorkerSockets, 1000);
    assert.equal(config.workerNice, 10);
    assert.equal(config.gcThreads, 'main');
    assert.equal(loadConfig({ ...base, GC_THREADS: 'parallel' }).gcThreads, 'parallel');
    assert.equal(config.webhookStreamWindowMs, 20);
    assert.equal(loadConfig({ ...base, WEBHOOK_STREAM_WINDOW: '0' }).webhookStreamWindowMs, 0);
    assert.equal(loadConfig({ ...base, WEBHOOK_STREAM_WINDOW: '5ms' }).webhookStreamWindowMs, 5);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.databaseUrl, undefined);
    assert.deepEqual(config.apiLimits, {
      perToken: { max: 1200, windowSeconds: 60 },
      perCompany: { max: 6000, windowSeconds: 60 },
    });
    assert.deepEqual(
      loadConfig({ ...base, API_LIMIT_PER_TOKEN: 'off', API_LIMIT_PER_COMPANY: '100000/1h' }).apiLimits,
      { perToken: null, perCompany: { max: 100_000, windowSeconds: 3600 } },
    );
  });

  it('stops on a bad value, naming the variable', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: 'eighty' }, /PORT/],
      [{ PORT: '70000' }, /PORT/],
      [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
      [{ DATABASE_URL: 'not a url' }, /DATABASE_URL/],
      [{ JWT_TTL: 'forever' }, /JWT_TTL/],
      [{ DATABASE_IDLE_TIMEOUT: '2h' }, /DATABASE_IDLE_TIMEOUT/],
      [{ WEBHOOK_RETRY_DELAYS: '30s,2m' }, /WEBHOOK_RETRY_DELAYS/],
      [{ WEBHOOK_ALLOW_PRIVATE: 'maybe' }, /WEBHOOK_ALLOW_PRIVATE/],
      [{ WEBHOOK_ENDPOINT_CONCURRENCY_MAX: '0' }, /WEBHOOK_ENDPOINT_CONCURRENCY_MAX/],
      [{ WEBHOOK_WORKER_SOCKETS: 'many' }, /WEBHOOK_WORKER_SOCKETS/],
      [{ WORKER_NICE: '20' }, /WORKER_NICE/],
      [{ GC_THREADS: 'both' }, /GC_THREADS must be one of main, parallel \(got "both"\)/],
      [{ WEBHOOK_STREAM_WINDOW: '2s' }, /WEBHOOK_STREAM_WINDOW must be from 0ms to 1s \(got "2s"\)/],
      [{ WEBHOOK_STREAM_WINDOW: 'soon' }, /WEBHOOK_STREAM_WINDOW/],
      [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
      [{ PROCESS_ROLE: 'boss' }, /PROCESS_ROLE/],
      [{ APP_KEY: 'c2hvcnQ=' }, /APP_KEY/],
      [{ JWT_SECRET: 'short' }, /JWT_SECRET/],
      [{ TELCO_BASE_URL: 'ftp://x' }, /TELCO_BASE_URL/],
      [{ JWT_TTL: '10s' }, /JWT_TTL must be from 1m to 30d/],
      [{ TELCO_TIMEOUT: '5ms' }, /TELCO_TIMEOUT must be from 100ms/],
      [{ TELCO_SIM_TIME_SCALE: '5' }, /TELCO_SIM_TIME_SCALE must be from 0.0001 to 1 \(got "5"\)/],
      [{ DIALER_LEASE: '15s' }, /DIALER_LEASE must be more than twice TELCO_TIMEOUT \(10000 ms\)/],
      [{ DIALER_CALLS_PER_SECOND: '0' }, /DIALER_CALLS_PER_SECOND/],
      [{ LOGIN_LIMIT_PER_IP: '0/1m' }, /LOGIN_LIMIT_PER_IP/],
      [{ LOGIN_LIMIT_PER_EMAIL: '10/0s' }, /LOGIN_LIMIT_PER_EMAIL/],
      [{ API_LIMIT_PER_TOKEN: 'none' }, /API_LIMIT_PER_TOKEN must look like 10\/15m/],
      [{ API_LIMIT_PER_COMPANY: '100/1500ms' }, /API_LIMIT_PER_COMPANY must allow 1 to 100000000 per whole seconds/],
      [{ WEBHOOK_RETRY_DELAYS: '1ms,2m,8m,32m' }, /WEBHOOK_RETRY_DELAYS must hold delays from 100ms/],
      [{ TRUST_PROXY: 'maybe' }, /TRUST_PROXY/],
      [{ TRUST_PROXY: '11' }, /TRUST_PROXY/],
      [{ CORS_ORIGINS: 'https://app.example.com/path' }, /CORS_ORIGINS/],
      [{ CORS_ORIGINS: 'not an origin' }, /CORS_ORIGINS/],
      [{ METRICS_TOKEN: 'short' }, /METRICS_TOKEN/],
      [{ WEBHOOK_TIMEOUT: '10ms' }, /WEBHOOK_TIMEOUT/],
      [{ WEBHOOK_ENDPOINT_CONCURRENCY: '0' }, /WEBHOOK_ENDPOINT_CONCURRENCY/],
    ];
    for (const [env, pattern] of cases) {
      assert.throws(() => loadConfig({ ...base, ...env }), pattern, JSON.stringify(env));
    }
  });

  it('lists every bad variable, one line each', () => {
    try {
      loadConfig({ ...base, PORT: 'x', JWT_TTL: 'y', LOG_LEVEL: 'z' });
      assert.fail('loadConfig accepted bad values');
    } catch (error) {
      const problems = (error as { problems: string[] }).problems;
      assert.deepEqual(
        problems.map((line) => /^Invalid configuration: (\w+)/.exec(line)?.[1]),
        ['PORT', 'JWT_TTL', 'LOG_LEVEL'],
      );
    }
  });

  it('takes TRUST_PROXY as a hop count', () => {
    assert.equal(loadConfig(base).trustProxy, 0);
    assert.equal(loadConfig({ ...base, TRUST_PROXY: 'true' }).trustProxy, 1);
    assert.equal(loadConfig({ ...base, TRUST_PROXY: '2' }).trustProxy, 2);
    assert.equal(loadConfig({ ...base, TRUST_PROXY: 'false' }).trustProxy, 0);
  });

  it('seeds demo data outside production only', () => {
    assert.equal(loadConfig(base).seedDemo, true);
    assert.equal(loadConfig({ ...base, NODE_ENV: 'production' }).seedDemo, false);
    assert.throws(
      () => loadConfig({ ...base, NODE_ENV: 'production', SEED_DEMO: 'true' }),
      /SEED_DEMO cannot be true in production/,
    );
  });

  it('requires JWT_SECRET and APP_KEY in production', () => {
    assert.throws(() => loadConfig({ NODE_ENV: 'production', APP_KEY: KEY }), /JWT_SECRET is required/);
    assert.throws(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40) }), /APP_KEY is required/);
  });

  it('generates development secrets once and keeps them', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'sb-secrets-'));
    const first = loadConfig({ DATA_DIR: dataDir });
    const second = loadConfig({ DATA_DIR: dataDir });
    assert.equal(first.jwtSecret, second.jwtSecret);
    assert.deepEqual(first.appKey, second.appKey);
    assert.equal(first.appKey.length, 32);
  });

  it('reads durations', () => {
    assert.equal(parseDuration('30s', 'X'), 30_000);
    assert.equal(parseDuration('2m', 'X'), 120_000);
    assert.equal(parseDuration('24h', 'X'), 86_400_000);
    assert.equal(parseDuration('15', 'X'), 15_000);
    assert.equal(parseDuration('250ms', 'X'), 250);
  });
});
