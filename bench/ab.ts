import path from 'node:path';
import { benchApp, compare, measure, type Scenario } from './harness.js';
import { kill, startWorker } from '../test/helpers/worker.js';

// `node dist/bench/ab.js <other checkout> [rounds]`: this build's service and
// another checkout's (built, its dist/ beside this one's node_modules) as API
// processes side by side on one database, the roles page over REST and a role
// renamed over REST asked of each in interleaved rounds; prints each one's
// rate and its process's CPU per answer, and the ratios. For a before and
// after while tuning, on the same host at the same time: not a result to
// quote (`npm run bench` is).

const other = path.resolve(process.argv[2] ?? '');
const rounds = Number(process.argv[3] ?? 7);
const app = await benchApp();
const env = {
  PROCESS_ROLE: 'api',
  NODE_ENV: 'production',
  LOG_LEVEL: 'error',
  DATABASE_POOL_SIZE: '10',
  API_LIMIT_PER_TOKEN: 'off',
  API_LIMIT_PER_COMPANY: 'off',
};
const here = process.cwd();
const mine = await startWorker(app, env);
process.chdir(other);
const theirs = await startWorker(app, env);
process.chdir(here);
try {
  const token = await app.login('owner@acme.test');
  const [acme] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
  await app.sql(
    `INSERT INTO roles (company_id, title, is_owner, created_at, updated_at)
    SELECT $1, 'AB role ' || g, false, now() - g * interval '1 minute', now() FROM generate_series(1, 200) g`,
    [acme.id],
  );
  const [renamed] = await app.sql("SELECT id FROM roles WHERE title = 'AB role 1'");
  const auth = { authorization: `Bearer ${token}` };
  const paths = (name: string, url: string, pid: number | undefined): Scenario[] => [
    { name: `read ${name}`, url: `${url}/api/roles?per_page=15`, headers: auth, pid },
    {
      name: `rename ${name}`,
      url: `${url}/api/roles/${renamed.id}`,
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"title":"AB renamed"}',
      pid,
    },
  ];
  const read = await measure(
    [paths('this', mine.url, mine.pid)[0], paths('other', theirs.url, theirs.pid)[0]],
    undefined,
    rounds,
  );
  const write = await measure(
    [paths('this', mine.url, mine.pid)[1], paths('other', theirs.url, theirs.pid)[1]],
    undefined,
    rounds,
  );
  for (const [what, results] of [
    ['read', read],
    ['rename', write],
  ] as const) {
    const ratio = compare(results[`${what} this`], results[`${what} other`]);
    process.stdout.write(
      `${what}: this/other rate ${ratio.mean} (paired ${ratio.paired}), CPU per answer other/this ${ratio.processCpu}; ` +
        `this ${results[`${what} this`].processCpuUs} µs, other ${results[`${what} other`].processCpuUs} µs\n`,
    );
  }
} finally {
  await kill(mine);
  await kill(theirs);
  await app.close();
}
