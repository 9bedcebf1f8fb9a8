import { mkdirSync, writeFileSync } from 'node:fs';
import { EVENT_NAMES } from '../src/events/catalog.js';
import { machineBusyTicks, runInfo } from './harness.js';
import { Receiver } from '../test/helpers/receiver.js';
import { closedLoop, cluster } from './webhooks.bench.js';

// The cost of payload filters (issue 27): the same deliveries with and
// without ten filters on each webhook, in one run, rounds interleaved. Twenty
// webhooks each subscribe to ten event types; in the filtered rounds each of
// them has a filter on all ten, and the filter on agent.created (the event
// the mutations cause) is ten comparisons that every event passes, so both
// configurations deliver the same events and only the filters' work differs.
// Measured: deliveries per second from the first receipt to the last, and
// the mutations per second that caused them. The host's speed drifts over a
// run by more than the filters cost, so the headline is the median of the
// rounds' paired ratios (each filtered round against the plain round next to
// it), and the machine's busy CPU time per delivery is measured beside it.

const ENDPOINTS = 20;
const MUTATIONS = Number(process.env.BENCH_FILTER_MUTATIONS ?? 250);
const ROUNDS = 10;
const TYPES = EVENT_NAMES.filter(
  (name) => name.startsWith('agent.') || name.startsWith('call.') || name.startsWith('sms.'),
).slice(0, 10);

/** Ten comparisons over agent.created's data that every created agent passes. */
const PASSING = {
  and: [
    { path: 'agent_id', exists: true },
    { path: 'name', ne: '' },
    { path: 'name', nin: ['blocked', 'spam'] },
    { path: 'active', in: [true, false] },
    { path: 'online', ne: true },
    {
      or: [
        { path: 'name', exists: true },
        { path: 'agent_id', eq: '0' },
      ],
    },
    { not: { path: 'contact', exists: true } },
    { path: 'agent_id', ne: '' },
    { path: 'active', exists: true },
  ],
};
const filterFor = (event: string) =>
  event === 'agent.created'
    ? PASSING
    : {
        path: event.startsWith('call.') ? 'call_id' : event.startsWith('sms.') ? 'message_id' : 'agent_id',
        exists: true,
      };

export async function filtersBench(): Promise<void> {
  const c = await cluster();
  const receiver = await new Receiver().start();
  try {
    const hooks: number[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      hooks.push(
        (
          await c.rest(c.owner, 'POST', '/api/webhooks', {
            title: `Filtered ${i}`,
            url: `${receiver.url}/${i}`,
            events: TYPES,
          })
        ).data!.id,
      );
    }
    const setFilters = async (on: boolean) => {
      const filters = on ? TYPES.map((event) => ({ event, filter: filterFor(event) })) : [];
      for (const id of hooks) await c.rest(c.owner, 'PUT', `/api/webhooks/${id}`, { filters });
    };
    const results: Record<
      'plain' | 'filtered',
      { deliveries: number[]; mutations: number[]; cpuMsPerDelivery: number[] }
    > = {
      plain: { deliveries: [], mutations: [], cpuMsPerDelivery: [] },
      filtered: { deliveries: [], mutations: [], cpuMsPerDelivery: [] },
    };
    const tickMs = 1000 / 100; // USER_HZ: /proc/stat counts hundredths of a second on Linux
    // A warm-up round of each first (not counted), then the rounds, the order alternating.
    for (let round = -1; round < ROUNDS; round++) {
      for (const mode of round % 2 === 0 ? (['filtered', 'plain'] as const) : (['plain', 'filtered'] as const)) {
        await setFilters(mode === 'filtered');
        const before = receiver.received.length;
        const busyBefore = machineBusyTicks();
        const writes = Math.round(
          await closedLoop(MUTATIONS, 10, (i) => c.createAgent(c.owner, `${mode} ${round}-${i}`)),
        );
        const mine = (await receiver.waitFor(before + MUTATIONS * ENDPOINTS, 300_000)).slice(before);
        const busy = busyBefore === null ? null : machineBusyTicks()! - busyBefore;
        const first = Math.min(...mine.map((r) => r.at));
        const last = Math.max(...mine.map((r) => r.at));
        if (round < 0) continue;
        results[mode].mutations.push(writes);
        results[mode].deliveries.push(Math.round(mine.length / ((last - first) / 1000)));
        if (busy !== null)
          results[mode].cpuMsPerDelivery.push(Math.round(((busy * tickMs) / mine.length) * 1000) / 1000);
      }
    }
    const [{ filtered }] = await c.app.sql<{ filtered: number }>(
      'SELECT count(*)::int AS filtered FROM events WHERE cardinality(filtered_by) > 0',
    );
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const ratio = (a: number[], b: number[]) => Math.round((mean(a) / mean(b)) * 100) / 100;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const paired = results.filtered.deliveries.map(
      (value, i) => Math.round((value / results.plain.deliveries[i]) * 100) / 100,
    );
    const out = {
      endpoints: ENDPOINTS,
      pairedDeliveryRatios: paired,
      pairedDeliveryRatio: median(paired),
      cpuRatio: results.plain.cpuMsPerDelivery.length
        ? ratio(results.plain.cpuMsPerDelivery, results.filtered.cpuMsPerDelivery)
        : null,
      filtersPerWebhook: TYPES.length,
      deliveriesPerRound: MUTATIONS * ENDPOINTS,
      plain: results.plain,
      filtered: results.filtered,
      deliveryRatio: ratio(results.filtered.deliveries, results.plain.deliveries),
      mutationRatio: ratio(results.filtered.mutations, results.plain.mutations),
      eventsTurnedAway: filtered,
    };
    process.stdout.write(
      `filters: ${out.deliveriesPerRound} deliveries per round over ${ENDPOINTS} webhooks with ` +
        `${out.filtersPerWebhook} filters each: ${out.filtered.deliveries.join('/')} per s filtered, ` +
        `${out.plain.deliveries.join('/')} plain (${out.deliveryRatio}x, paired median ` +
        `${out.pairedDeliveryRatio}x); CPU per delivery ${out.cpuRatio}x; writes ` +
        `${out.filtered.mutations.join('/')} / ${out.plain.mutations.join('/')} per s (${out.mutationRatio}x)\n`,
    );
    const { commit, machine, database } = runInfo();
    const measuredAt = new Date().toISOString();
    mkdirSync('bench/results', { recursive: true });
    writeFileSync(
      'bench/results/filters.json',
      `${JSON.stringify({ measuredAt, commit, machine, database, ...out }, null, 2)}\n`,
    );
    writeFileSync(
      'bench/results/filters.md',
      [
        `# Payload filters (${measuredAt.slice(0, 10)}, commit ${commit})`,
        '',
        `${machine}; ${database}; one API and two worker processes (production mode), receivers and ` +
          `PostgreSQL on this one machine; agent.created caused by GraphQL mutations over HTTP, 10 at a time; ` +
          `a warm-up round of each, then ${ROUNDS} rounds of each, interleaved, the order alternating.`,
        '',
        '| measure | with 10 filters per webhook | without | ratio | target |',
        '|---|---|---|---|---|',
        `| deliveries per second, ${out.deliveriesPerRound} per round over ${ENDPOINTS} webhooks, first ` +
          `receipt to last | ${out.filtered.deliveries.join(', ')} | ${out.plain.deliveries.join(', ')} | ` +
          `${out.deliveryRatio}x (mean over mean) | |`,
        `| the same, each filtered round against the plain round next to it | | | ` +
          `${out.pairedDeliveryRatios.join(', ')}: median ${out.pairedDeliveryRatio}x | at least 0.95x |`,
        `| machine CPU (busy, not stolen) per delivery, ms | ${out.filtered.cpuMsPerDelivery.join(', ')} | ` +
          `${out.plain.cpuMsPerDelivery.join(', ')} | ${out.cpuRatio}x (plain over filtered) | at least 0.95x |`,
        `| mutations per second that caused them | ${out.filtered.mutations.join(', ')} | ${out.plain.mutations.join(', ')} | ${out.mutationRatio}x | |`,
        '',
        `Every event passed its filter (${out.eventsTurnedAway} turned away), so both configurations delivered the same events.`,
        '',
      ].join('\n'),
    );
  } finally {
    await receiver.close();
    await c.close();
  }
}
