import type { LookupFunction } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { type Dispatcher, Pool } from 'undici';
import type { Destination } from '../config/destination.js';
import type { ClientTls, Send, SendResult } from './attempt.js';

// One HTTP attempt, sent with undici (Node's own HTTP client library, which
// costs a worker about half the CPU per request of node:http: docs/adr/0102):
// POST to the checked address (the Host header and TLS name stay the URL's),
// redirects not followed, the response read up to a cap, the whole exchange
// within the timeout. Connections are kept alive: one pool per origin and
// checked address, so a busy endpoint costs one TCP (and TLS) handshake per
// socket, not per attempt, and a name that now resolves elsewhere gets a new
// pool (and a new check).

export const RESPONSE_READ_LIMIT = 64 * 1024;
export const RESPONSE_KEEP = 1024;
/** Idle sockets are closed before the usual 5 s keep-alive timeout of servers, so a reused socket is rarely one the server is closing. */
const IDLE_SOCKET_MS = 4000;
/** Pools kept at most. */
const POOLS_MAX = 1000;

const pools = new Map<string, Pool>();

function poolFor(url: URL, destination: Destination, tls?: ClientTls): Pool {
  const key = `${url.protocol}//${url.host}|${destination.address}|${tls?.id ?? ''}`;
  let pool = pools.get(key);
  if (pool) {
    // Most recently used last, so the first is the one to close.
    pools.delete(key);
    pools.set(key, pool);
    return pool;
  }
  // Connect to the address that was checked, whatever the name resolves to now.
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address: destination.address, family: destination.family },
      ]);
    else callback(null, destination.address, destination.family);
  };
  // An endpoint with client TLS gets pools of its own: its certificate, key and CA (docs/adr/0070).
  const connect = { lookup: pinned, ...(tls ? { cert: tls.cert, key: tls.key, ca: tls.ca } : {}) };
  pool = new Pool(url.origin, {
    connect,
    keepAliveTimeout: IDLE_SOCKET_MS,
    keepAliveMaxTimeout: IDLE_SOCKET_MS,
    // The attempt's own timer bounds the exchange (sendAttempt).
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  pools.set(key, pool);
  // Beyond the cap the least recently used is closed once its attempts in flight finish.
  if (pools.size > POOLS_MAX) {
    const [oldest, dropped] = pools.entries().next().value as [string, Pool];
    pools.delete(oldest);
    void dropped.close().catch(() => undefined);
  }
  return pool;
}

/** Closes every kept connection (at shutdown). */
export function closeConnections(): void {
  for (const pool of pools.values()) void pool.destroy().catch(() => undefined);
  pools.clear();
}

/** The request's path and query, as sent. */
const pathOf = (url: URL) => `${url.pathname}${url.search}`;

/** Retry-After as milliseconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Opens a kept-alive connection to an endpoint ahead of its first request
 * (a decision endpoint, when saved): an OPTIONS request whose answer is read
 * and dropped, leaving its socket idle in the origin's agent.
 */
export async function warmConnection(
  url: URL,
  destination: Destination,
  timeoutMs: number,
  tls?: ClientTls,
): Promise<void> {
  try {
    const { body } = await poolFor(url, destination, tls).request({
      path: pathOf(url),
      method: 'OPTIONS',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await body.dump();
  } catch {
    // A warm-up that fails leaves nothing behind; the first request opens its own connection.
  }
}

export const sendAttempt: Send = (url, destination, body, headers, timeoutMs, options = {}) => {
  const keepChars = options.keepChars ?? RESPONSE_KEEP;
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    let status: number | null = null;
    let answer: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let size = 0;
    let request: Dispatcher.DispatchController | undefined;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const durationMs = Math.round(performance.now() - started);
      resolve({ ...result, durationMs, ...(timedOut ? { timedOut } : {}) });
    };
    const answered = () => {
      const text = Buffer.concat(chunks).toString('utf8').slice(0, keepChars);
      const code = status ?? 0;
      const wait = code === 429 || code === 503 ? retryAfterMs(first(answer['retry-after'])) : undefined;
      finish({
        statusCode: code,
        responseBody: text,
        error:
          code >= 200 && code < 300
            ? null
            : code >= 300 && code < 400
              ? `redirect to ${first(answer.location) ?? '(no location)'} not followed`
              : `HTTP ${code}`,
        ...(wait === undefined ? {} : { retryAfterMs: wait }),
      });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      const error = new Error(`timed out after ${timeoutMs} ms`);
      finish({ statusCode: null, responseBody: null, error: error.message });
      request?.abort(error);
    }, timeoutMs);
    poolFor(url, destination, options.tls).dispatch(
      { path: pathOf(url), method: 'POST', headers, body },
      {
        onRequestStart(controller) {
          request = controller;
          if (settled) controller.abort(new Error('timed out'));
        },
        onResponseStart(_controller, statusCode, responseHeaders) {
          status = statusCode;
          answer = responseHeaders;
        },
        onResponseData(controller, chunk) {
          if (size >= RESPONSE_READ_LIMIT) return;
          chunks.push(chunk.subarray(0, RESPONSE_READ_LIMIT - size));
          size += chunk.length;
          // A body cut off at the cap closes its socket; one read to its end leaves the socket reusable.
          if (size >= RESPONSE_READ_LIMIT) {
            answered();
            controller.abort(new Error('response read up to its cap'));
          }
        },
        onResponseEnd: answered,
        onResponseError(_controller, error) {
          finish(
            status === null
              ? { statusCode: null, responseBody: null, error: messageOf(error) }
              : { statusCode: status, responseBody: null, error: `response not readable: ${messageOf(error)}` },
          );
        },
      },
    );
  });
};

/** A header's first value. */
const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** What went wrong, as recorded: the error's message (and its code when the message does not name it). */
function messageOf(error: unknown): string {
  const { message, code, cause } = error as { message?: string; code?: string; cause?: { message?: string } };
  const text = message || cause?.message || String(error);
  return code && !text.includes(code) ? `${text} (${code})` : text;
}
