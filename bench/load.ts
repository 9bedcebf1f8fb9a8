import { readFileSync } from 'node:fs';
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
  /** The process serving it, when not the bench's own: its CPU per answer is read from /proc. */
  pid?: number;
}

/** One window of load: every response's time, so windows can be merged into one distribution. */
export interface Window {
  seconds: number;
  /** Milliseconds from request to response, one per response. */
  latencies: number[];
  errors: number;
  /** The machine's busy CPU ticks over the measured seconds (every process: the service, PostgreSQL, this generator); null off Linux. */
  busy: number | null;
  /** Answers in the unmeasured lead-in (so the caller can divide its own CPU time over lead-in and window by every answer). */
  leadInAnswers: number;
}

/**
 * CPU time the machine spent working (user, nice, system, irq, softirq: neither idle, waiting nor stolen), and the time
 * the hypervisor took from it (steal), in clock ticks (Linux /proc/stat); null elsewhere.
 */
export function machineTicks(): { busy: number; stolen: number } | null {
  try {
    const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return { busy: user + nice + system + irq + softirq, stolen: steal ?? 0 };
  } catch {
    return null;
  }
}

/** The machine's busy CPU time in clock ticks (machineTicks). */
export const machineBusyTicks = (): number | null => machineTicks()?.busy ?? null;

interface Job {
  scenario: Scenario;
  connections: number;
  seconds: number;
  leadIn: number;
}

/**
 * Runs one scenario in a child process: `leadIn` seconds unmeasured (new
 * connections, the garbage of the path before), then `seconds` measured.
 */
export function load(scenario: Scenario, connections: number, seconds: number, leadIn = 0): Promise<Window> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--load']);
    child.once('message', (window) => resolve(window as Window));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`the load generator exited with ${code}`)));
    child.send({ scenario, connections, seconds, leadIn } satisfies Job);
  });
}

async function run({ scenario, connections, seconds, leadIn }: Job): Promise<Window> {
  let n = 0;
  const { bodyTemplate, cycle, ...options } = scenario;
  const path = new URL(scenario.url).pathname;
  const requests = bodyTemplate
    ? [
        {
          setupRequest: (request: Record<string, unknown>) => {
            const v = cycle?.[n % cycle.length] ?? '';
            const unique = `${process.pid}-${Date.now()}-${++n}`;
            return {
              ...request,
              path: path.replaceAll('%7Bv%7D', v),
              body: bodyTemplate.replaceAll('{n}', unique).replaceAll('{v}', v),
            };
          },
        },
      ]
    : undefined;
  const lead = leadIn > 0 ? await autocannon({ ...options, requests, connections, duration: leadIn }) : undefined;
  const latencies: number[] = [];
  const busyBefore = machineBusyTicks();
  const running = autocannon({ ...options, requests, connections, duration: seconds });
  running.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => latencies.push(ms));
  const r = await running;
  const busyAfter = machineBusyTicks();
  return {
    seconds: r.duration,
    latencies,
    errors: r.non2xx + r.errors,
    busy: busyBefore === null || busyAfter === null ? null : busyAfter - busyBefore,
    leadInAnswers: lead?.requests.total ?? 0,
  };
}

if (process.argv.includes('--load')) {
  process.once('message', async (job) => {
    process.send!(await run(job as Job), () => process.exit(0));
  });
}
