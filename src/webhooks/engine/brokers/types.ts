import type { BrokerTarget } from '../../config/broker-url.js';

/** One signed message: the body of an HTTP delivery and its headers. */
export interface BrokerMessage {
  id: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * A connection to one destination (a broker URL), kept and reused by its
 * attempts. `publish` resolves with the broker's answer once it has taken the
 * message (a confirm, an ack, an entry id, a PUBACK) and rejects with its
 * reason otherwise; `broken` tells the pool to make a new one.
 */
export interface BrokerClient {
  publish(message: BrokerMessage, timeoutMs: number): Promise<string>;
  readonly broken: boolean;
  close(): Promise<void>;
}

/** Where to connect: the target, and the address its host was checked at (destination.ts). */
export interface BrokerConnect {
  target: BrokerTarget;
  address: string;
  timeoutMs: number;
}

/** Rejects after `ms` with the reason, unless the promise settles first. */
export function within<T>(promise: Promise<T>, ms: number, reason: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(reason)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
