import { isIP } from 'node:net';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import type { BrokerTarget } from '../../config/broker-url.js';
import type { ClientTls } from '../attempt.js';

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

/** Where to connect: the target, the address its host was checked at (destination.ts), the webhook's client TLS. */
export interface BrokerConnect {
  target: BrokerTarget;
  address: string;
  timeoutMs: number;
  tls?: ClientTls;
}

/**
 * Node's TLS options for a broker over TLS: the certificate is checked
 * against the URL's host (the connection goes to its checked address), with
 * the webhook's CA and client certificate when it has them.
 */
export function tlsOptions({ target, tls }: BrokerConnect) {
  return {
    ...(isIP(target.host) ? {} : { servername: target.host }),
    checkServerIdentity: (_address: string, certificate: PeerCertificate) =>
      checkServerIdentity(target.host, certificate),
    ...(tls?.ca ? { ca: tls.ca } : {}),
    ...(tls?.cert ? { cert: tls.cert, key: tls.key } : {}),
  };
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
