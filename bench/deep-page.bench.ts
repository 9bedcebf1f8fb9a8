import { insertCalls } from './api.bench.js';
import { measure, report, type TestApp } from './harness.js';

// (d) A deep page against page 1 of the same list: appointment calls, "Last
// Year", in one company holding 1,000,000 calls (one in three booked).

const CALLS = Number(process.env.BENCH_DEEP_CALLS ?? 1_000_000);
const DEEP_PAGE = Number(process.env.BENCH_DEEP_PAGE ?? 5000);

export async function deepPageBench(app: TestApp): Promise<void> {
  const token = await app.login('owner@acme.test');
  const [acme] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
  await insertCalls(app, acme.id, CALLS);
  const auth = { authorization: `Bearer ${token}` };
  const url = (page: number) => `${app.url}/api/ai/dashboard/appointments?date_range=Last%20Year&page=${page}`;
  const deep = await (await fetch(url(DEEP_PAGE), { headers: auth })).json();
  if (deep.data?.records?.length !== 15 || deep.data.pagination.from !== (DEEP_PAGE - 1) * 15 + 1)
    throw new Error(`page ${DEEP_PAGE} is not a full page: ${JSON.stringify(deep).slice(0, 300)}`);
  const results = await measure([
    { name: 'page 1', url: url(1), headers: auth },
    { name: `page ${DEEP_PAGE}`, url: url(DEEP_PAGE), headers: auth },
  ]);
  const ratio = Math.round((results[`page ${DEEP_PAGE}`].p50 / results['page 1'].p50) * 100) / 100;
  report(
    'deep-page',
    `(d) appointment calls, Last Year, page ${DEEP_PAGE} against page 1, ` +
      `${CALLS.toLocaleString('en-US')} calls in one company ` +
      `(${deep.data.pagination.total.toLocaleString('en-US')} in the range)`,
    { deep: results },
    { [`p50 page ${DEEP_PAGE}/page 1`]: ratio },
  );
}
