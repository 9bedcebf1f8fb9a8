import { mkdirSync, writeFileSync } from 'node:fs';
import { timezones } from 'libphonenumber-geo-carrier';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { phoneTimeZones } from '../src/kernel/phone-time-zones.js';
import type { TestApp } from '../test/helpers/app.js';
import { runInfo } from './harness.js';

// `npm run bench -- leads`: a campaign's leads in bulk (docs/dialer.md). Two measures:
// - a number's time zones: the map held in memory (kernel/phone-time-zones.ts) against the package's own
//   timezones(), which reads and decodes its data file on every call; both first checked to give the same zones
//   for every number, then timed in alternating rounds (docs/architecture.md names this replacement);
// - a CSV file of 10,000 leads with two variables imported through POST /api/campaigns/{id}/leads/import into a
//   new campaign each round: leads added per second, each round checked to have added them all.

const NUMBERS = 2000;
const LEADS = Number(process.env.BENCH_LEADS ?? 10_000);
const ORDER = ['ours', 'package', 'package', 'ours', 'package', 'ours'] as const;

const numbers = Array.from({ length: NUMBERS }, (_, i) => {
  const country = [1, 1, 1, 44, 49, 61, 33, 55][i % 8];
  return parsePhoneNumberFromString(
    `+${country}${String(2_012_345_678 + i * 3_733_331).slice(0, country === 1 ? 10 : 9)}`,
  );
}).filter((n) => n !== undefined);

async function lookups(form: 'ours' | 'package'): Promise<number> {
  const started = performance.now();
  for (const number of numbers) {
    if (form === 'ours') phoneTimeZones(number.number);
    else await timezones(number);
  }
  return Math.round(numbers.length / ((performance.now() - started) / 1000));
}

async function importRound(app: TestApp, token: string, n: number): Promise<number> {
  const created = await app.request('POST', '/api/campaigns', { token, body: { name: `Bench import ${n}` } });
  const rows = Array.from(
    { length: LEADS },
    (_, i) => `+1${2_000_000_000 + n * 1_000_003 + i * 7_919},Lead ${i},tier-${i % 5},"note ${i}, for the agent"`,
  );
  const started = performance.now();
  const res = await app.request('POST', `/api/campaigns/${created.body.data.id}/leads/import`, {
    token,
    headers: { 'content-type': 'text/csv' },
    raw: `phone_number,first_name,tier,notes\n${rows.join('\n')}\n`,
  });
  const seconds = (performance.now() - started) / 1000;
  if (res.status !== 201 || res.body.data.added !== LEADS)
    throw new Error(`import round ${n}: ${res.status} ${res.text.slice(0, 300)}`);
  return Math.round(LEADS / seconds);
}

export async function leadsBench(app: TestApp): Promise<void> {
  for (const number of numbers) {
    const [ours, theirs] = [phoneTimeZones(number.number), (await timezones(number)) ?? []];
    if (JSON.stringify(ours) !== JSON.stringify(theirs))
      throw new Error(`${number.number}: ${JSON.stringify(ours)}, the package ${JSON.stringify(theirs)}`);
  }
  await lookups('ours');
  await lookups('package');
  const rounds: Array<{ form: string; perSecond: number }> = [];
  for (const form of ORDER) rounds.push({ form, perSecond: await lookups(form) });
  const of = (form: string) => rounds.filter((r) => r.form === form).map((r) => r.perSecond);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const ratio = Math.round(mean(of('ours')) / mean(of('package')));
  process.stdout.write(
    `time zones: ours ${of('ours').join('/')}/s, package ${of('package').join('/')}/s (${ratio}x)\n`,
  );

  const token = await app.login('owner@acme.test');
  await importRound(app, token, 0);
  const imports = [1, 2, 3];
  const importRates: number[] = [];
  for (const n of imports) importRates.push(await importRound(app, token, n));
  process.stdout.write(`import: ${importRates.join('/')} leads/s\n`);

  const { commit, machine, database } = runInfo();
  const measuredAt = new Date().toISOString();
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/leads.json',
    `${JSON.stringify({ measuredAt, commit, machine, database, numbers: numbers.length, rounds, ratio, leads: LEADS, importRates }, null, 2)}\n`,
  );
  writeFileSync(
    'bench/results/leads.md',
    [
      `# A campaign's leads in bulk (${measuredAt.slice(0, 10)}, commit ${commit})`,
      '',
      `${machine}; ${database}. Time zones: ${numbers.length.toLocaleString('en-US')} numbers of eight countries, ` +
        "each looked up by the map held in memory and by the package's own timezones(), both first checked to give " +
        `the same zones for every number; rounds in the order ${ORDER.join(', ')} after one of each unmeasured.`,
      '',
      '| form | numbers looked up per second |',
      '|---|---|',
      `| the map held in memory (ours) | ${of('ours').join(', ')} |`,
      `| the package's timezones() | ${of('package').join(', ')} |`,
      '',
      `Ours: ${ratio}x the package's rate.`,
      '',
      `Import: a CSV file of ${LEADS.toLocaleString('en-US')} leads (a name and two variables each) posted to ` +
        'POST /api/campaigns/{id}/leads/import, into a new campaign each round after one unmeasured, each checked to ' +
        'have added every lead (contacts made, lead.generated recorded).',
      '',
      '| round | leads added per second |',
      '|---|---|',
      ...importRates.map((rate, i) => `| ${i + 1} | ${rate.toLocaleString('en-US')} |`),
      '',
    ].join('\n'),
  );
}
