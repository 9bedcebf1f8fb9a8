import type { Destination } from '../config/destination.js';

// What one attempt is, whatever it is sent over: HTTP (http-send.ts) or a broker (brokers/).

export interface SendResult {
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  /** The attempt ran out of time (no answer within the timeout). */
  timedOut?: boolean;
  /** What the receiver's Retry-After asked for, in milliseconds (429 and 503 only). */
  retryAfterMs?: number;
  /** The destination is a message broker. */
  broker?: boolean;
  /** The attempt never finished: its worker stopped (the reconciler closed it). */
  interrupted?: boolean;
}

/** One attempt to a destination: the signed body and headers to the checked address, within the timeout. */
export type Send = (
  url: URL,
  destination: Destination,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  options?: SendOptions,
) => Promise<SendResult>;

/** Client TLS for an https endpoint: a certificate and key for mutual TLS, a CA to trust; `id` names the set. */
export interface ClientTls {
  id: string;
  cert?: string;
  key?: string;
  ca?: string;
}

export interface SendOptions {
  /** How much of the answer to keep (a delivery's log keeps its first kilobyte). */
  keepChars?: number;
  tls?: ClientTls;
}
