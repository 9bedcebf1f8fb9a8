import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Destination } from '../config/destination.js';
import type { ClientTls, Send, SendResult } from './attempt.js';

// One HTTP attempt: POST to the checked address (the Host header and TLS
// name stay the URL's), redirects not followed, the response read up to a
// cap, the whole exchange within the timeout. Connections are kept alive:
// one agent per origin and checked address, so a busy endpoint costs one
// TCP (and TLS) handshake per socket, not per attempt, and a name that now
// resolves elsewhere gets a new agent (and a new check).

export const RESPONSE_READ_LIMIT = 64 * 1024;
export const RESPONSE_KEEP = 1024;
/** Idle sockets are closed before the usual 5 s keep-alive timeout of servers, so a reused socket is rarely one the server is closing. */
const IDLE_SOCKET_MS = 4000;
/**
 * Idle sockets kept per agent (an origin). Every webhook of an origin shares
 * its agent, so the origin's busy sockets are bounded by the sum of its
 * webhooks' concurrency, which can be far more than one webhook's maximum:
 * a socket freed while this many are idle is closed, and the next attempt
 * opens a new one. Idle sockets close after IDLE_SOCKET_MS anyway.
 */
const IDLE_SOCKETS = 1024;
/** Agents kept at most. */
const AGENTS_MAX = 1000;

const agents = new Map<string, http.Agent>();

function agentFor(url: URL, destination: Destination, tls?: ClientTls): http.Agent {
  const key = `${url.protocol}//${url.host}|${destination.address}|${tls?.id ?? ''}`;
  let agent = agents.get(key);
  if (agent) {
    // Most recently used last, so the first is the one to close.
    agents.delete(key);
    agents.set(key, agent);
    return agent;
  }
  // Connect to the address that was checked, whatever the name resolves to now.
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address: destination.address, family: destination.family },
      ]);
    else callback(null, destination.address, destination.family);
  };
  const options = {
    keepAlive: true,
    maxFreeSockets: IDLE_SOCKETS,
    timeout: IDLE_SOCKET_MS,
    scheduling: 'lifo' as const,
    lookup: pinned,
  };
  // An endpoint with client TLS gets agents of its own: its certificate, key and CA (docs/adr/0070).
  const withTls = tls ? { ...options, cert: tls.cert, key: tls.key, ca: tls.ca } : options;
  agent = url.protocol === 'https:' ? new https.Agent(withTls) : new http.Agent(options);
  agents.set(key, agent);
  // Beyond the cap the least recently used is forgotten: its attempts in flight finish, its idle sockets time out.
  if (agents.size > AGENTS_MAX) agents.delete(agents.keys().next().value as string);
  return agent;
}

/** Closes every kept connection (at shutdown). */
export function closeAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

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
export function warmConnection(url: URL, destination: Destination, timeoutMs: number, tls?: ClientTls): Promise<void> {
  return new Promise((resolve) => {
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'OPTIONS',
      agent: agentFor(url, destination, tls),
      timeout: timeoutMs,
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve());
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve());
      response.on('error', () => resolve());
    });
    request.end();
  });
}

export const sendAttempt: Send = (url, destination, body, headers, timeoutMs, options = {}) => {
  const keepChars = options.keepChars ?? RESPONSE_KEEP;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed(), ...(timedOut ? { timedOut } : {}) });
    };
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: agentFor(url, destination, options.tls),
    });
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    request.on('error', (error) => finish({ statusCode: null, responseBody: null, error: error.message }));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const text = Buffer.concat(chunks).toString('utf8').slice(0, keepChars);
        const status = response.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        const wait = status === 429 || status === 503 ? retryAfterMs(response.headers['retry-after']) : undefined;
        finish({
          statusCode: status,
          responseBody: text,
          error: ok
            ? null
            : status >= 300 && status < 400
              ? `redirect to ${response.headers.location ?? '(no location)'} not followed`
              : `HTTP ${status}`,
          ...(wait === undefined ? {} : { retryAfterMs: wait }),
        });
        // A body read to its end leaves the socket reusable; one cut off at the cap is closed.
        if (size >= RESPONSE_READ_LIMIT) response.destroy();
      };
      response.on('data', (chunk: Buffer) => {
        if (size >= RESPONSE_READ_LIMIT) return;
        chunks.push(chunk.subarray(0, RESPONSE_READ_LIMIT - size));
        size += chunk.length;
        if (size >= RESPONSE_READ_LIMIT) done();
      });
      response.on('end', done);
      response.on('error', (error) =>
        finish({
          statusCode: response.statusCode ?? null,
          responseBody: null,
          error: `response not readable: ${error.message}`,
        }),
      );
    });
    request.end(body);
  });
};
