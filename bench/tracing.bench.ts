import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { assertSameAnswer, compare, measure, report, type Result, type Scenario, type TestApp } from './harness.js';
import { kill, startWorker } from '../test/helpers/worker.js';

// What OpenTelemetry costs the read path (issue 28): the roles page over REST
// from API processes of the service on one database, side by side:
//   - off: no OTLP endpoint (the default), so no SDK, hook or middleware;
//   - VARIANTS: requests traced and exported over OTLP/HTTP to a sink on
//     loopback: "on" as configured by default (every request, the service's
//     own spans: the request, its statements; protobuf), the same in JSON,
//     one request in ten sampled (OTEL_TRACES_SAMPLER), with pg's
//     instrumentation for the statements instead, and with every
//     instrumentation (BENCH_TRACING, a list of `name=libraries[@ratio][|VARIABLE=value ...]`,
//     libraries `default` or a comma-separated list, a ratio of requests
//     sampled, more variables of the process, overrides them);
//   - a second process with tracing off (OTEL_SDK_DISABLED=true): the same
//     code as off, so its ratios say how far two equal paths measure apart
//     on this machine, the resolution of every other ratio here.
// Each is a process of its own (the hooks are process-wide), so the CPU per
// answer is each process's own.

const VARIANTS =
  process.env.BENCH_TRACING ??
  'on=default;on, JSON=default|OTEL_EXPORTER_OTLP_PROTOCOL=http/json;on, 1 in 10 ' +
    'sampled=default@0.1;pg instrumented=pg;every library=http,express,pg,graphql;off, a second ' +
    'process=default|OTEL_SDK_DISABLED=true';

const TRACING_ROUNDS = 9;

/** `a=b=c` as [a, b=c]: a name, then what follows its first `=`. */
const assignment = (text: string) => [text.slice(0, text.indexOf('=')), text.slice(text.indexOf('=') + 1)];

/** An OTLP/HTTP endpoint that takes every export and keeps a count. */
export async function otlpSink(): Promise<{ url: string; exports: () => number; close: () => Promise<void> }> {
  let exports = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function tracingBench(app: TestApp): Promise<void> {
  const token = await app.login('owner@acme.test');
  const sink = await otlpSink();
  const env = {
    PROCESS_ROLE: 'api',
    NODE_ENV: 'production',
    DATABASE_POOL_SIZE: String(app.config.databasePoolSize),
    OTEL_SERVICE_NAME: 'switchboard-bench',
  };
  const variants = VARIANTS.split(';').map(assignment);
  const processes: Record<string, Awaited<ReturnType<typeof startWorker>>> = { off: await startWorker(app, env) };
  for (const [name, spec] of variants) {
    const [chosen, variables = ''] = spec.split('|');
    const [libraries, ratio] = chosen.split('@');
    const sampled: Record<string, string> = ratio
      ? { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: ratio }
      : {};
    const instrumented: Record<string, string> =
      libraries === 'default' ? {} : { OTEL_NODE_ENABLED_INSTRUMENTATIONS: libraries };
    const more = Object.fromEntries(variables.split(' ').filter(Boolean).map(assignment));
    processes[name] = await startWorker(app, {
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      ...instrumented,
      ...sampled,
      ...more,
    });
  }
  try {
    const paths: Scenario[] = Object.entries(processes).map(([name, child]) => ({
      name,
      url: `${child.url}/api/roles?per_page=15`,
      headers: { authorization: `Bearer ${token}` },
      pid: child.pid,
    }));
    for (const path of paths.slice(1)) await assertSameAnswer(paths[0], path);
    const results = { roles: await measure(paths, undefined, TRACING_ROUNDS) };
    if (sink.exports() === 0) throw new Error('the traced process exported nothing');
    const traced = variants.map(([name, libraries]) => `${name} (${libraries})`).join(', ');
    report(
      'tracing',
      `the roles page over REST from API processes, one with tracing off and the others as named ` +
        `(libraries, ratio of requests sampled, variables), traced requests exported over OTLP ` +
        `(${sink.exports()} exports received): ${traced}`,
      results,
      tracingRatios(results.roles),
    );
  } finally {
    for (const child of Object.values(processes)) await kill(child);
    await sink.close();
  }
}

function tracingRatios(results: Record<string, Result>): Record<string, number> {
  const ratios: Record<string, number> = {};
  for (const path of Object.keys(results).filter((name) => name !== 'off')) {
    const { mean, paired, processCpu } = compare(results[path], results.off);
    Object.assign(ratios, {
      [`roles ${path}/off`]: mean,
      [`roles ${path}/off, paired rounds`]: paired,
      [`roles ${path}/off, service CPU per answer`]: processCpu,
    });
  }
  return ratios;
}
