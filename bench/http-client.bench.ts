import { spawn } from 'node:child_process';
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { sendAttempt } from '../src/webhooks/engine/http-send.js';
import { runInfo } from './harness.js';

// The delivery's HTTP request (docs/adr/0102-deliveries-sent-with-undici.md): the product's sendAttempt (undici)
// against what a careful engineer writes on node:http (a kept-alive agent per origin, the body read to its end),
// each POSTing the same signed-looking delivery to a receiver in a process of its own on loopback, 40 at a time.
// Before timing, the receiver's digest of what each path sent (method, path, the headers the receiver reads, the
// body) must be the same. Measured: this process's CPU per request (the client's cost alone) and requests a second,
// in rounds alternating the paths.

const REQUESTS = Number(process.env.BENCH_HTTP_REQUESTS ?? 20_000);
const CONCURRENCY = 40;
const ROUNDS = 5;

/** The receiver: answers 200 with a digest of what it got, in a process of its own. */
const RECEIVER = `
const { createHash } = require('node:crypto');
require('node:http').createServer((req, res) => {
  const hash = createHash('sha256').update(req.method + ' ' + req.url);
  for (const name of ['content-type', 'content-length', 'host', 'webhook-id', 'webhook-signature', 'webhook-timestamp', 'user-agent'])
    hash.update(name + ':' + (req.headers[name] ?? '') + '\\n');
  req.on('data', (chunk) => hash.update(chunk));
  req.on('end', () => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(hash.digest('hex')); });
}).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;

const body = JSON.stringify({
  event: 'agent.created',
  timestamp: '2026-12-02T10:00:00.000Z',
  webhook_id: '42',
  data: { id: 'agt_1', name: 'x'.repeat(300), contact: null },
  metadata: { version: '1' },
});
const headers = {
  'content-type': 'application/json',
  'user-agent': 'Switchboard-Webhooks/bench',
  'webhook-id': 'msg_01JDBENCH',
  'webhook-timestamp': '1764669600',
  'webhook-signature': `v1,${'A'.repeat(43)}=`,
};

type Path = () => Promise<string>;

export async function httpClientBench(): Promise<void> {
  const receiver = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve) => receiver.stdout!.once('data', (d) => resolve(Number(d))));
    const url = new URL(`http://127.0.0.1:${port}/hooks/bench?x=1`);
    const destination = { address: '127.0.0.1', family: 4 } as const;
    const agent = new http.Agent({ keepAlive: true, maxFreeSockets: 1024, scheduling: 'lifo' });
    const paths: Record<string, Path> = {
      'undici (sendAttempt)': async () => {
        const result = await sendAttempt(url, destination, body, headers, 10_000);
        if (result.statusCode !== 200) throw new Error(`sendAttempt: ${result.statusCode} ${result.error}`);
        return result.responseBody ?? '';
      },
      'node:http, kept-alive agent': () =>
        new Promise((resolve, reject) => {
          const request = http.request(url, {
            method: 'POST',
            agent,
            headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          });
          request.on('error', reject);
          request.on('response', (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          });
          request.end(body);
        }),
    };
    const names = Object.keys(paths);
    const digests = await Promise.all(names.map((name) => paths[name]()));
    if (new Set(digests).size !== 1) throw new Error(`the paths sent different requests: ${digests.join(' / ')}`);
    const measured: Record<string, Array<{ cpuUs: number; perSecond: number }>> = Object.fromEntries(
      names.map((name) => [name, []]),
    );
    // One unmeasured round of each (connections open, code warm), then ROUNDS of each, alternating.
    for (let round = -1; round < ROUNDS; round++)
      for (const name of round % 2 === 0 ? names : [...names].reverse()) {
        let next = 0;
        const cpu = process.cpuUsage();
        const began = performance.now();
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (next++ < REQUESTS) await paths[name]();
          }),
        );
        const used = process.cpuUsage(cpu);
        if (round >= 0)
          measured[name].push({
            cpuUs: (used.user + used.system) / REQUESTS,
            perSecond: REQUESTS / ((performance.now() - began) / 1000),
          });
      }
    agent.destroy();
    report(measured, digests[0]);
  } finally {
    receiver.kill();
  }
}

function report(measured: Record<string, Array<{ cpuUs: number; perSecond: number }>>, digest: string): void {
  const { commit, machine } = runInfo();
  const measuredAt = new Date().toISOString();
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const [product, baseline] = Object.keys(measured);
  const cpu = (name: string) => mean(measured[name].map((r) => r.cpuUs));
  const ratio = Math.round((cpu(product) / cpu(baseline)) * 100) / 100;
  writeFileSync(
    'bench/results/http-client.json',
    `${JSON.stringify({ measuredAt, commit, machine, requests: REQUESTS, concurrency: CONCURRENCY, measured, ratio }, null, 2)}\n`,
  );
  writeFileSync(
    'bench/results/http-client.md',
    [
      `# A delivery's HTTP request: undici against node:http (${measuredAt.slice(0, 10)}, commit ${commit})`,
      '',
      `${machine}. ${REQUESTS} POSTs of a delivery a round, ${CONCURRENCY} at a time, to a receiver in a process of its ` +
        `own on loopback; ${ROUNDS} rounds of each path alternating, after one of each unmeasured. Both paths sent ` +
        `the same request (the receiver's digest of it: \`${digest.slice(0, 12)}…\`). CPU is the sending process's ` +
        'alone, per request.',
      '',
      '| path | CPU per request µs, each round | requests a second, each round |',
      '|---|---|---|',
      ...Object.entries(measured).map(
        ([name, rounds]) =>
          `| ${name} | ${rounds.map((r) => r.cpuUs.toFixed(1)).join(', ')} | ` +
          `${rounds.map((r) => Math.round(r.perSecond)).join(', ')} |`,
      ),
      '',
      `CPU per request, ${product} / ${baseline} = ${ratio}`,
      '',
    ].join('\n'),
  );
  process.stdout.write(`http-client: CPU per request ${product} / ${baseline} = ${ratio}\n`);
}
