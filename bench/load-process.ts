import { Agent, request } from 'undici';
import { openLoop } from './webhooks.bench.js';

// A load generator in a process of its own (forked by a bench part): GraphQL mutations offered at a pace and timed
// here, where no receiver, signature check or bookkeeping of the bench shares the event loop, so an answer's time is
// the API's and the network's, not the bench's. Each message is a run; the answer is openLoop's result. Requests go
// by undici's request over kept-alive connections: fetch cost this process about twice the CPU per request on the
// bench's machine, CPU the service under test shares its two cores with.

export interface LoadRun {
  url: string;
  token: string;
  query: string;
  /** The mutation's `$n` is this tag and the request's number. */
  tag: string;
  rate: number;
  seconds: number;
}

export type LoadResult = Awaited<ReturnType<typeof openLoop>>;

const agent = new Agent({ connections: 64 });

process.on('message', async (run: LoadRun) => {
  const result = await openLoop(run.rate, run.seconds, async (i) => {
    const res = await request(run.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${run.token}` },
      body: JSON.stringify({ query: run.query, variables: { n: `${run.tag} ${i}` } }),
      dispatcher: agent,
    });
    const body = (await res.body.json()) as { errors?: unknown[] };
    if (res.statusCode !== 200 || body.errors)
      throw new Error(`mutation failed: ${res.statusCode} ${JSON.stringify(body).slice(0, 200)}`);
  });
  process.send!(result);
});
process.send!('ready');
