import type { TestApp } from './app.js';

// Helpers of the dialer's tests: waiting for a campaign's state, and what the telco simulator was asked to dial.

/** Polls `probe` until it gives a truthy value (false and undefined: not yet); throws after `ms`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    const value = await probe();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The calls the simulator placed to a number, in order. */
export const simCallsTo = (app: TestApp, number: string) =>
  app.running.simulator!.outbound.calls.filter((c) => c.to === number);
