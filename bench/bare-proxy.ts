import http from 'node:http';
import type { AddressInfo } from 'node:net';

// The floor of the call-path bench: the least a Node.js process can do between the provider and the decision
// endpoint. It reads the callback's form, asks the endpoint over a kept-alive connection with the call's sid, and
// answers with the endpoint's body: no signature checked or made, nothing kept, nothing recorded. What Switchboard
// adds above this is its own work; this much is the machine's and Node's. Started by call-path.bench.ts as a child
// process: `node dist/bench/bare-proxy.js <endpoint url>`, it sends its port to the parent.

const endpoint = process.argv[2];
const agent = new http.Agent({ keepAlive: true });
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const body = JSON.stringify({ type: 'call.inbound', data: { call_sid: form.get('CallSid') } });
    const asked = http.request(endpoint, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    asked.on('response', (answer) => {
      const parts: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => parts.push(chunk));
      answer.on('end', () => res.writeHead(200, { 'content-type': 'text/xml' }).end(Buffer.concat(parts)));
    });
    asked.on('error', () => res.writeHead(502).end());
    asked.end(body);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.send?.((server.address() as AddressInfo).port));
