import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Destination } from './destination.js';

// One HTTP attempt: POST to the checked address (the Host header and TLS
// name stay the URL's), redirects not followed, the response read up to a
// cap, the whole exchange within the timeout.

export const RESPONSE_READ_LIMIT = 64 * 1024;
export const RESPONSE_KEEP = 1024;

export interface SendResult {
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
}

export function sendAttempt(url: URL, destination: Destination, body: string, headers: Record<string, string>, timeoutMs: number): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // Connect to the address that was checked, whatever the name resolves to now.
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address: destination.address, family: destination.family }]);
    else callback(null, destination.address, destination.family);
  };
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup: pinned,
      agent: false,
    });
    const timer = setTimeout(() => {
      request.destroy(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    request.on('error', (error) => finish({ statusCode: null, responseBody: null, error: error.message }));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const text = Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_KEEP);
        const status = response.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        finish({
          statusCode: status,
          responseBody: text,
          error: ok ? null : status >= 300 && status < 400 ? `redirect to ${response.headers.location ?? '(no location)'} not followed` : `HTTP ${status}`,
        });
        response.destroy();
      };
      response.on('data', (chunk: Buffer) => {
        if (size >= RESPONSE_READ_LIMIT) return;
        chunks.push(chunk.subarray(0, RESPONSE_READ_LIMIT - size));
        size += chunk.length;
        if (size >= RESPONSE_READ_LIMIT) done();
      });
      response.on('end', done);
      response.on('error', (error) => finish({ statusCode: response.statusCode ?? null, responseBody: null, error: `response not readable: ${error.message}` }));
    });
    request.end(body);
  });
}
