import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../config/config.js';
import { startEmbeddedPostgres } from '../db/embedded.js';
import { createLogger } from '../observability/logger.js';

// `npm run limits -- --company "Acme Agency"` shows a company's API budgets;
// `--per-token 5000 --per-company 20000` gives it budgets of its own (points
// per window of API_LIMIT_PER_TOKEN / API_LIMIT_PER_COMPANY), `default` gives
// back the configured ones. API processes read a company's budgets again
// within a minute.

const USAGE =
  'Usage: npm run limits -- --company <id or name> [--per-token <points>|default] [--per-company <points>|default]';

function points(value: string | undefined, option: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 100_000_000)
    throw new Error(`--${option} must be a whole number of points from 1 to 100000000, or default (got "${value}")`);
  return Number(value);
}

const fail = (message: string): never => {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
};

let options: { company?: string; 'per-token'?: string; 'per-company'?: string };
try {
  ({ values: options } = parseArgs({
    options: { company: { type: 'string' }, 'per-token': { type: 'string' }, 'per-company': { type: 'string' } },
  }));
} catch (error) {
  fail((error as Error).message);
}
if (!options!.company) fail('--company is required.');
let perToken: number | null | undefined;
let perCompany: number | null | undefined;
try {
  perToken = points(options!['per-token'], 'per-token');
  perCompany = points(options!['per-company'], 'per-company');
} catch (error) {
  fail((error as Error).message);
}

const config = loadConfig();
const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
const embedded = config.databaseUrl
  ? undefined
  : await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'), 'switchboard', log);
const client = new pg.Client({ connectionString: config.databaseUrl ?? embedded!.url });
await client.connect();
try {
  const company = options!.company!;
  const byId = /^\d+$/.test(company);
  const { rows } = await client.query<{
    id: number;
    name: string;
    per_token: number | null;
    per_company: number | null;
  }>(
    `UPDATE companies SET
       api_limit_per_token = CASE WHEN $2 THEN $3::int ELSE api_limit_per_token END,
       api_limit_per_company = CASE WHEN $4 THEN $5::int ELSE api_limit_per_company END
     WHERE ${byId ? 'id = $1::int' : 'name = $1'}
     RETURNING id, name, api_limit_per_token AS per_token, api_limit_per_company AS per_company`,
    [company, perToken !== undefined, perToken ?? null, perCompany !== undefined, perCompany ?? null],
  );
  if (rows.length === 0) fail(`No company ${byId ? 'with id' : 'named'} ${company}.`);
  const window = (own: number | null, base: { max: number; windowSeconds: number } | null) =>
    own !== null
      ? `${own} points per ${base?.windowSeconds ?? 60} s (its own)`
      : base
        ? `${base.max} points per ${base.windowSeconds} s (the default)`
        : 'off (the default)';
  for (const row of rows) {
    process.stdout.write(
      `${row.name} (id ${row.id}):\n  per token:   ${window(row.per_token, config.apiLimits.perToken)}\n  ` +
        `per company: ${window(row.per_company, config.apiLimits.perCompany)}\n`,
    );
  }
} finally {
  await client.end();
  await embedded?.stop();
}
