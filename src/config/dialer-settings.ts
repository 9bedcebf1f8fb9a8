import { ConfigError } from './config-error.js';

// The dialer's settings that config.ts reads beyond its own kinds (docs/operations.md).

/** TELCO_SIM_TIME_SCALE: a number from 0.0001 to 1 (default 1). */
export function timeScale(raw: string | undefined): number {
  const value = raw ? Number(raw) : 1;
  if (!(value >= 0.0001 && value <= 1))
    throw new ConfigError('TELCO_SIM_TIME_SCALE', `must be from 0.0001 to 1 (got "${raw}")`);
  return value;
}

/** A claim's lease must outlast the provider's answer, or a dial still waiting for it would be taken as stopped. */
export function dialerProblems(leaseMs: number, telcoTimeoutMs: number): string[] {
  return leaseMs > 2 * telcoTimeoutMs
    ? []
    : [`Invalid configuration: DIALER_LEASE must be more than twice TELCO_TIMEOUT (${telcoTimeoutMs} ms)`];
}
