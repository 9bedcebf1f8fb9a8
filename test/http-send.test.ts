import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { closeConnections, RESPONSE_KEEP, sendAttempt } from '../src/webhooks/engine/http-send.js';
import { closedPort, Receiver } from './helpers/receiver.js';

// One HTTP attempt as the engine makes it (webhooks/engine/http-send.ts, on undici): against a real receiver on
// loopback, what the receiver got and what the attempt recorded.

const loopback = { address: '127.0.0.1', family: 4 } as const;
const body = JSON.stringify({ event: 'agent.created', data: { id: 'agt_1' } });
const headers = {
  'content-type': 'application/json',
  'webhook-id': 'msg_1',
  'user-agent': 'Switchboard-Webhooks/test',
};

after(() => closeConnections());

describe('an HTTP attempt', () => {
  it('POSTs the body and headers to the checked address, the Host still the URL’s, on one kept-alive connection', async () => {
    const receiver = await new Receiver().start();
    try {
      const port = new URL(receiver.url).port;
      // A name that resolves nowhere: the attempt goes to the address that was checked.
      const url = new URL(`http://hooks.switchboard.invalid:${port}/in?x=1`);
      for (let i = 0; i < 3; i++) {
        const result = await sendAttempt(url, loopback, body, headers, 5000);
        assert.equal(result.statusCode, 200);
        assert.equal(result.error, null);
        assert.equal(result.responseBody, 'ok');
        // The connection is back in its pool once the turn that read the answer is over.
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.equal(receiver.received.length, 3);
      const [first] = receiver.received;
      assert.equal(first.path, '/in?x=1');
      assert.equal(first.body, body);
      assert.equal(first.headers.host, `hooks.switchboard.invalid:${port}`);
      assert.equal(first.headers['content-type'], 'application/json');
      assert.equal(first.headers['content-length'], String(Buffer.byteLength(body)));
      assert.equal(first.headers['webhook-id'], 'msg_1');
      assert.equal(receiver.connections.opened, 1, 'the connection was kept alive');
    } finally {
      await receiver.close();
    }
  });

  it('does not follow a redirect, and records where it pointed', async () => {
    const receiver = await new Receiver().start();
    try {
      receiver.answer = () => ({ status: 302, headers: { location: '/elsewhere' } });
      const result = await sendAttempt(new URL(`${receiver.url}/in`), loopback, body, headers, 5000);
      assert.equal(result.statusCode, 302);
      assert.equal(result.error, 'redirect to /elsewhere not followed');
      assert.equal(receiver.received.length, 1);
    } finally {
      await receiver.close();
    }
  });

  it('keeps the first kilobyte of a large answer, reads no further than 64 KiB, and closes that connection', async () => {
    let written = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        // 4 MiB offered in 64 KiB chunks; the sender stops reading at its cap and closes the socket.
        const chunk = 'x'.repeat(64 * 1024);
        const more = () => {
          while (written < 4 * 1024 * 1024) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end();
        };
        res.on('error', () => undefined);
        more();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/big`);
      const result = await sendAttempt(url, loopback, body, headers, 5000);
      assert.equal(result.statusCode, 500);
      assert.equal(result.error, 'HTTP 500');
      assert.equal(result.responseBody, 'x'.repeat(RESPONSE_KEEP));
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.ok(written < 4 * 1024 * 1024, `the receiver wrote ${written} bytes: the sender kept reading`);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('gives up at the timeout, and reads Retry-After on a 429', async () => {
    const receiver = await new Receiver().start();
    try {
      receiver.answer = () => ({ hang: true });
      const hung = await sendAttempt(new URL(`${receiver.url}/slow`), loopback, body, headers, 150);
      assert.equal(hung.statusCode, null);
      assert.equal(hung.error, 'timed out after 150 ms');
      assert.equal(hung.timedOut, true);
      assert.ok(hung.durationMs >= 145, `${hung.durationMs} ms`);
      receiver.answer = () => ({ status: 429, headers: { 'retry-after': '7' } });
      const limited = await sendAttempt(new URL(`${receiver.url}/busy`), loopback, body, headers, 5000);
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.retryAfterMs, 7000);
      assert.equal(limited.error, 'HTTP 429');
    } finally {
      await receiver.close();
    }
  });

  it('records a refused connection by its code', async () => {
    const port = await closedPort();
    const result = await sendAttempt(new URL(`http://127.0.0.1:${port}/x`), loopback, body, headers, 5000);
    assert.equal(result.statusCode, null);
    assert.match(result.error ?? '', /ECONNREFUSED/);
  });
});
