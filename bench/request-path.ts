import { Session } from 'node:inspector/promises';
import { startTestApp } from '../test/helpers/app.js';

// `node dist/bench/request-path.js [path]`: the source files one request
// crosses (default GET /api/roles). The app runs in this process; V8's
// precise coverage counts the functions each file ran while the request was
// answered, after a first request has compiled and cached what it needs.
// Files that ran in three requests out of three are listed (a timer of the
// app's own may run beside one of them).

const route = process.argv[2] ?? '/api/roles';
const app = await startTestApp({ PROCESS_ROLE: 'api', LOG_LEVEL: 'silent' });
const session = new Session();
session.connect();
try {
  const token = await app.login('owner@acme.test');
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const crossed: Array<Set<string>> = [];
  for (let i = 0; i < 4; i++) {
    await session.post('Profiler.takePreciseCoverage'); // resets the counts
    const res = await app.request('GET', route, { token });
    if (res.status !== 200) throw new Error(`GET ${route}: ${res.status}`);
    const { result } = await session.post('Profiler.takePreciseCoverage');
    const files = result
      .filter(
        (script) =>
          /\/dist\/src\//.test(script.url) && script.functions.some((fn) => fn.ranges.some((range) => range.count > 0)),
      )
      .map((script) => script.url.replace(/^.*\/dist\//, '').replace(/\.js$/, '.ts'));
    if (i > 0) crossed.push(new Set(files)); // the first request compiles and caches
  }
  const always = [...crossed[0]].filter((file) => crossed.every((set) => set.has(file))).sort();
  process.stdout.write(
    `GET ${route} crosses ${always.length} source files:\n${always.map((file) => `  ${file}`).join('\n')}\n`,
  );
} finally {
  session.disconnect();
  await app.close();
}
