import { insertRows, type SeedCompany, type SeedStatement } from './calls.js';

// The demo campaign (docs/dialer.md, "Trying it"): a draft of the agency's, ready to start, whose leads' numbers play
// each outcome in the telephony simulator (their last digits: src/telco/outbound-calls.ts) and whose zones span the
// world, so that at any hour some are within their calling hours and the others wait for theirs.

const LEADS: Array<[phone: string, first: string, zone: string, variables: Record<string, string | number>]> = [
  ['+12025550171', 'Ada', 'America/New_York', { plan: 'gold', seats: 12 }],
  ['+12025550172', 'Grace', 'America/Chicago', { plan: 'silver', seats: 4 }],
  ['+12025550176', 'Alan', 'America/Denver', { plan: 'gold', seats: 7 }],
  ['+12025550177', 'Edsger', 'America/Los_Angeles', { plan: 'bronze', seats: 1 }],
  ['+12025550178', 'Barbara', 'Pacific/Honolulu', { plan: 'silver', seats: 3 }],
  ['+12025550179', 'Donald', 'Europe/London', { plan: 'gold', seats: 20 }],
  ['+12025550173', 'Margaret', 'Asia/Tokyo', { plan: 'silver', seats: 9 }],
  ['+12025550199', 'Ken', 'Australia/Sydney', { plan: 'bronze', seats: 2 }],
];

export async function seedDemoCampaign(
  sql: SeedStatement,
  company: SeedCompany,
  agentId: number,
  now: Date,
): Promise<void> {
  const [campaign] = await sql(
    `INSERT INTO campaigns (company_id, name, status, agent_id, created_at, updated_at) VALUES ($1, $2, 'draft', $3, $4, $4)
     RETURNING id`,
    [company.id, 'Renewal calls (demo)', agentId, now],
  );
  const contacts = await insertRows(
    sql,
    'contacts',
    ['company_id', 'phone_number', 'first_name', 'created_at', 'updated_at'],
    LEADS.map(([phone, first]) => [company.id, phone, first, now, now]),
  );
  await insertRows(
    sql,
    'leads',
    [
      'company_id',
      'contact_id',
      'campaign_id',
      'source',
      'key',
      'variables',
      'time_zone',
      'time_zones',
      'state',
      'next_attempt_at',
      'created_at',
      'updated_at',
    ],
    LEADS.map(([phone, , zone, variables], i) => [
      company.id,
      contacts[i],
      campaign.id,
      'demo',
      phone,
      JSON.stringify(variables),
      zone,
      JSON.stringify([zone]),
      'pending',
      now,
      now,
      now,
    ]),
  );
}
