import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The load generator runs in a process of its own, so the process under test
// does not share its event loop with the client that measures it.

export interface Scenario {
  name: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** A body made per request: `{n}` becomes a number no other request of the run uses, `{v}` the next of `cycle`. */
  bodyTemplate?: string;
  /** Values taken in turn for `{v}` in the path and body (e.g. which row a write changes). */
  cycle?: string[];
}

export interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

interface Job {
  scenario: Scenario;
  connections: number;
  seconds: number;
}

/** Runs one scenario for `seconds` in a child process (after a 2 s warm-up) and returns what it measured. */
export function load(scenario: Scenario, connections: number, seconds: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--load']);
    child.once('message', (result) => resolve(result as Result));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`the load generator exited with ${code}`)));
    child.send({ scenario, connections, seconds } satisfies Job);
  });
}

async function run({ scenario, connections, seconds }: Job): Promise<Result> {
  let n = 0;
  const { bodyTemplate, cycle, ...options } = scenario;
  const path = new URL(scenario.url).pathname;
  const requests = bodyTemplate
    ? [{
      setupRequest: (request: Record<string, unknown>) => {
        const v = cycle?.[n % cycle.length] ?? '';
        const unique = `${process.pid}-${Date.now()}-${++n}`;
        return { ...request, path: path.replaceAll('%7Bv%7D', v), body: bodyTemplate.replaceAll('{n}', unique).replaceAll('{v}', v) };
      },
    }]
    : undefined;
  await autocannon({ ...options, requests, connections, duration: 2 });
  const r = await autocannon({ ...options, requests, connections, duration: seconds });
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors };
}

if (process.argv.includes('--load')) {
  process.once('message', async (job) => {
    process.send!(await run(job as Job), () => process.exit(0));
  });
}
