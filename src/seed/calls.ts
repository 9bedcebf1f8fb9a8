import { SecretBox } from '../crypto/secret-box.js';
import { DEMO_ACCOUNTS, demoAccountSid, demoAuthToken } from '../telco/inventory.js';
import { CARRIERS } from '../spam/reputation.js';
import { seededRandom } from './random.js';
import { PhoneStatus, SENTIMENTS, SpamNumberType, SpamStatus, UseFor } from '../kernel/vocabulary.js';

/** A statement on the database being seeded (`$1` placeholders). */
export type SeedStatement = (text: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;

/** A demo company, once written. */
export interface SeedCompany {
  id: number;
  name: string;
}

/** Writes rows of `columns` into `table` in one statement; their ids, in the rows' order. */
export async function insertRows(
  sql: SeedStatement,
  table: string,
  columns: string[],
  rows: unknown[][],
): Promise<number[]> {
  const values = rows.map((row, r) => `(${row.map((_value, c) => `$${r * columns.length + c + 1}`).join(', ')})`);
  const inserted = await sql(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values.join(', ')} RETURNING id`,
    rows.flat(),
  );
  return inserted.map((row) => row.id as number);
}

// Demo agents, spam-protected numbers and calls (docs/design.md §9). Calls are
// spread relative to the seeding time, so every dashboard range has rows.

const FIRST = [
  'Ava',
  'Ben',
  'Cleo',
  'Dev',
  'Eli',
  'Fay',
  'Gus',
  'Hana',
  'Ivo',
  'Jade',
  'Kai',
  'Lena',
  'Milo',
  'Nia',
  'Otto',
  'Pia',
  'Quin',
  'Rae',
  'Sol',
  'Tess',
  'Uma',
  'Vic',
  'Wren',
  'Xia',
  'Yuri',
  'Zoe',
];
const DISPOSITIONS = ['appointment-set', 'callback', 'not-interested', 'voicemail', 'wrong-number'];
const DAY = 86_400_000;

/** Days ago at which demo calls happen: today, yesterday, this and last week, this and last month, last year. */
const CALL_DAYS = [0, 0, 0, 1, 1, 2, 3, 5, 6, 8, 9, 10, 12, 15, 20, 25, 33, 40, 45, 60];

/** A spam-protected number of the demo, as its row's values (written by the caller: spam numbers are SQL's). */
export type SpamSeed = [string, string, string, string, string, Date | null, Date, boolean, Date];

/** A demo agent, once written. */
export interface SeedAgent {
  id: number;
  name: string;
}

/** Agents and calls of a company, written; its spam-protected numbers, to be written. */
export async function seedCalls(
  sql: SeedStatement,
  company: SeedCompany,
  index: number,
  now = new Date(),
): Promise<{ agents: SeedAgent[]; spam: SpamSeed[] }> {
  const spam: SpamSeed[] = [];
  const random = seededRandom(1000 + index);
  const prefix = ['212', '312', '415'][index % 3];
  const names = FIRST.slice(0, 24).map((first, i) => `${first} ${['Voice', 'Assist', 'Caller', 'Booker'][i % 4]}`);
  const agentIds = await insertRows(
    sql,
    'agents',
    ['company_id', 'name', 'active', 'online', 'created_at', 'updated_at'],
    names.map((name, i) => [company.id, name, i < 21, i % 3 === 0, now, now]),
  );
  const agents = names.map((name, i) => ({ id: agentIds[i], name }));

  // Spam-protected numbers of every type and status.
  const statuses = [SpamStatus.InProgress, SpamStatus.Flagged, SpamStatus.Clean];
  let n = 0;
  for (const type of [SpamNumberType.AI, SpamNumberType.House, SpamNumberType.Custom]) {
    for (const status of statuses) {
      for (let k = 0; k < 2; k++) {
        // Flagged by every carrier, or by none, so each row agrees with any threshold.
        const flagged = status === SpamStatus.Flagged ? [...CARRIERS] : [];
        const created = new Date(now.getTime() - (40 - n) * DAY);
        spam.push([
          type,
          status,
          `+1${prefix}555${String(1000 + n).slice(-4)}`,
          JSON.stringify(flagged),
          JSON.stringify(status === SpamStatus.InProgress ? [] : [...CARRIERS]),
          status === SpamStatus.InProgress ? null : new Date(now.getTime() - random.int(1, 20) * 3_600_000),
          new Date(now.getTime() + random.int(5, 60) * DAY),
          random.chance(0.7),
          created,
        ]);
        n++;
      }
    }
  }

  // Calls: a few on each demo day, about a third booking an appointment.
  const calls: unknown[][] = [];
  let callNo = 0;
  const dayOfYear = Math.floor((now.getTime() - Date.UTC(now.getUTCFullYear(), 0, 1)) / DAY);
  for (const daysAgo of [...CALL_DAYS, dayOfYear + 120, dayOfYear + 240]) {
    for (let k = 0; k < 3; k++) {
      const agent = random.pick(agents.slice(0, 21));
      const startedAt = new Date(now.getTime() - daysAgo * DAY - random.int(60, 6 * 3600) * 1000);
      const booked = k === 0 || random.chance(0.25);
      const answered = booked || random.chance(0.7);
      const inbound = random.chance(0.5);
      const company10 = `+1${prefix}555${String(2000 + callNo).slice(-4)}`;
      const contact = `+1${random.int(201, 989)}${random.int(2000000, 9999999)}`;
      calls.push([
        company.id,
        agent.id,
        `CA${index}${String(callNo).padStart(6, '0')}`,
        inbound ? contact : company10,
        inbound ? company10 : contact,
        startedAt,
        answered ? random.int(30, 900) : 0,
        answered ? 'completed' : random.pick(['no-answer', 'busy', 'failed']),
        inbound ? 'inbound' : 'outbound',
        answered ? random.pick(SENTIMENTS) : null,
        answered ? `https://recordings.switchboard.test/${index}/${callNo}.mp3` : null,
        answered
          ? `Agent: Hello, this is ${agent.name}. Caller: Hi, I'd like to ${booked ? 'book a visit' : 'ask a question'}.`
          : null,
        booked ? 'appointment-set' : answered ? random.pick(DISPOSITIONS.slice(1)) : null,
        JSON.stringify(booked ? ['appointment', 'ai'] : ['ai']),
        JSON.stringify({ campaign: random.pick(['spring', 'summer', 'renewal']), lead_score: random.int(1, 100) }),
        booked ? new Date(startedAt.getTime() + random.int(1, 14) * DAY) : null,
        `${random.pick(FIRST)} ${random.pick(['Smith', 'Jones', 'Garcia', 'Lee', 'Brown'])}`,
        random.chance(0.6) ? `contact${callNo}@example.test` : null,
        startedAt,
        startedAt,
      ]);
      callNo++;
    }
  }
  await insertRows(
    sql,
    'calls',
    [
      'company_id',
      'agent_id',
      'provider_call_id',
      'from_number',
      'to_number',
      'started_at',
      'duration_seconds',
      'status',
      'direction',
      'sentiment',
      'recording_url',
      'transcript',
      'disposition',
      'tags',
      'custom_fields',
      'appointment_at',
      'contact_name',
      'contact_email',
      'created_at',
      'updated_at',
    ],
    calls,
  );
  return { agents, spam };
}

/** Phone numbers of every use, the first ones answered by a chatbot agent (the agents written already). */
export async function seedNumbers(
  sql: SeedStatement,
  company: SeedCompany,
  index: number,
  agents: SeedAgent[],
  now = new Date(),
): Promise<void> {
  const prefix = ['212', '312', '415'][index % 3];
  const uses = [UseFor.ai, UseFor.ai, UseFor.dialer, UseFor.dialer, UseFor.both, UseFor.both] as const;
  for (const [i, useFor] of uses.entries()) {
    const created = new Date(now.getTime() - (30 - i) * DAY);
    await sql(
      `INSERT INTO phone_numbers (company_id, phone_no, provider_sid, status, use_for, ai_active, phone_type,
         phone_title, has_spam_protection, tendlc, chatbot_agent_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)`,
      [
        company.id,
        `+1${prefix}555${String(100 + i).padStart(4, '0')}`,
        `PNdemo${index}${String(i).padStart(25, '0')}`,
        i % 2 === 0 ? PhoneStatus.Verified : PhoneStatus.Unverified,
        useFor,
        useFor !== UseFor.dialer,
        i === 5 ? 'tollfree' : i === 4 ? 'mobile' : 'local',
        `${company.name.split(' ')[0]} ${useFor} line ${i + 1}`,
        i < 3,
        i < 2 ? 'Yes' : i < 4 ? 'No' : null,
        useFor === UseFor.ai ? agents[i].id : null,
        created,
      ],
    );
  }
}

/**
 * The provider accounts of the demo companies: the telco simulator's demo
 * accounts (Beta Clinic has none, so its owner sees the "set credentials first" path).
 */
export async function seedTelcoAccount(
  sql: SeedStatement,
  company: SeedCompany,
  key: string,
  box: SecretBox,
  at: Date,
): Promise<void> {
  const demo = DEMO_ACCOUNTS.find((a) => a.key === key);
  if (!demo || key === 'beta') return;
  await sql(
    `INSERT INTO telco_accounts (company_id, account_sid, auth_token_sealed, balance, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $5)`,
    [company.id, demoAccountSid(key), box.seal(demoAuthToken(key)), demo.balance.toFixed(2), at],
  );
}
