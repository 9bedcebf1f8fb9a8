import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliveryViolation } from './contract.js';

// A real webhook receiver on loopback: it records every request as received
// (raw body, headers, arrival time) and answers as the test tells it. Every
// webhook delivery it gets is checked against the OpenAPI document's
// `webhooks` entry for its event; closing it fails when one did not fit.

export interface Received {
  /** The request's path. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Answer {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Never answer (the request hangs until the sender gives up). */
  hang?: boolean;
  /** Answer after this long. */
  delayMs?: number;
  /** Answer once this settles (then after delayMs, if any). */
  after?: Promise<unknown>;
}

export class Receiver {
  readonly received: Received[] = [];
  /** Deliveries that did not fit the document, with what was wrong. */
  readonly violations: string[] = [];
  answer: (request: Received, index: number) => Answer = () => ({ status: 200, body: 'ok' });
  private server?: Server;
  url = '';
  /** Connections the senders opened, and those they closed (the receiver never closes one while running). */
  readonly connections = { opened: 0, closed: 0 };

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = {
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        this.received.push(request);
        if (req.headers['x-webhook-event'] !== undefined) {
          const violation = deliveryViolation(req.headers, request.body);
          if (violation) this.violations.push(violation);
        }
        const answer = this.answer(request, this.received.length - 1);
        if (answer.hang) return;
        const send = () => {
          res.writeHead(answer.status ?? 200, answer.headers ?? {});
          res.end(answer.body ?? '');
        };
        const timed = () => (answer.delayMs ? setTimeout(send, answer.delayMs) : send());
        if (answer.after) void answer.after.then(timed, timed);
        else timed();
      });
    });
    this.server.on('connection', (socket) => {
      this.connections.opened++;
      socket.once('end', () => this.connections.closed++);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this;
  }

  /** Waits until `count` requests matching `filter` have arrived; throws after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 10_000, filter: (r: Received) => boolean = () => true): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const matching = this.received.filter(filter);
      if (matching.length >= count) return matching;
      if (Date.now() > deadline)
        throw new Error(`received ${matching.length} of ${count} requests within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    if (this.violations.length > 0)
      throw new Error(`deliveries that do not fit openapi.json's webhooks:\n${this.violations.slice(0, 5).join('\n')}`);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value that is not undefined. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 10_000,
  what = 'the condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** A port nothing listens on (one just closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
