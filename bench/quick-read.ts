import { benchApp } from './harness.js';
import { load } from './load.js';
import { startBestRoutes } from './best-routes.js';
import { TEST_JWT_SECRET } from '../test/helpers/app.js';

// `node dist/bench/quick-read.js [seconds] [rounds]`: the roles page over REST
// and GraphQL against the best hand-written route on Express, alternating, for
// a quick before-and-after while tuning the read path. Not a result to quote:
// `npm run bench` is.

const seconds = Number(process.argv[2] ?? 4);
const rounds = Number(process.argv[3] ?? 3);
const app = await benchApp();
const best = await startBestRoutes(app.running.databaseUrl, TEST_JWT_SECRET);
try {
  const token = await app.login('owner@acme.test');
  const [acme] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
  await app.sql(
    `INSERT INTO roles (company_id, title, is_owner, created_at, updated_at)
    SELECT $1, 'Quick role ' || g, false, now() - g * interval '1 minute', now() FROM generate_series(1, 200) g`,
    [acme.id],
  );
  const auth = { authorization: `Bearer ${token}` };
  const scenarios = [
    { name: 'REST', url: `${app.url}/api/roles?per_page=15`, headers: auth },
    {
      name: 'GraphQL',
      url: `${app.url}/graphql`,
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          '{ roles(page: 1, perPage: 15) { records { id title created_at: createdAt updated_at: updatedAt } ' +
          'pagination { total current_page: currentPage per_page: perPage last_page: lastPage from to } } }',
      }),
    },
    { name: 'bestExpress', url: `${best.expressUrl}/roles`, headers: auth },
    { name: 'best', url: `${best.fastifyUrl}/roles`, headers: auth },
  ];
  const rates: Record<string, number[]> = {};
  for (let round = 0; round < rounds; round++) {
    for (const scenario of scenarios) {
      const window = await load(scenario, 20, seconds, 1);
      if (window.errors) throw new Error(`${scenario.name}: ${window.errors} errors`);
      (rates[scenario.name] ??= []).push(Math.round(window.latencies.length / window.seconds));
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  for (const [name, values] of Object.entries(rates))
    process.stdout.write(
      `${name.padEnd(12)} ${String(median(values)).padStart(6)}/s  (${values.join(', ')})  ` +
        `${(median(values) / median(rates.best)).toFixed(2)} of best, ` +
        `${(median(values) / median(rates.bestExpress)).toFixed(2)} of bestExpress\n`,
    );
} finally {
  await best.close();
  await app.close();
}
