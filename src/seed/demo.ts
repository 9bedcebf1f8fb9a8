import { hashPassword } from '../auth/passwords.js';
import { SecretBox } from '../crypto/secret-box.js';
import { seedDemoCampaign } from './campaign.js';
import { seedCalls, seedNumbers, seedTelcoAccount, type SeedCompany, type SeedStatement } from './calls.js';

export type { SeedStatement };
import { createHash } from 'node:crypto';
import { WorkflowStatus, type TriggerConfig } from '../kernel/workflow.js';

// The demo dataset (docs/design.md §9): created on an empty database by
// `npm start` and `npm run seed`, and used by the tests.

export const DEMO_PASSWORD = 'switchboard';

export const DEMO_LOGINS = [
  {
    email: 'owner@acme.test',
    shows: 'Acme Agency (agency, America/New_York) as Owner: every permission, child company Beta Clinic',
  },
  {
    email: 'supervisor@acme.test',
    shows: 'Acme Agency as Supervisor: everything except roles and the spam-protected number list',
  },
  { email: 'owner@beta.test', shows: 'Beta Clinic (child of Acme, America/Chicago) as Owner' },
  { email: 'owner@gamma.test', shows: 'Gamma Solar (unrelated company, UTC) as Owner' },
] as const;

/** Permissions the Supervisor role lacks (docs/design.md §9). */
export const SUPERVISOR_WITHOUT = [
  'view-role',
  'edit-role',
  'delete-role',
  'assign-role-permission',
  'view-spam-protected-numbers',
];

const BASE_TIME = Date.UTC(2026, 0, 5, 9, 0, 0);

export async function seedDemoIfEmpty(sql: SeedStatement, appKey: Buffer, now = new Date()): Promise<boolean> {
  if ((await sql('SELECT 1 FROM companies LIMIT 1')).length > 0) return false;
  await seedDemo(sql, appKey, now);
  return true;
}

/** `appKey` seals the demo provider credentials, as the app would. */
export async function seedDemo(sql: SeedStatement, appKey: Buffer, now = new Date()): Promise<void> {
  const box = new SecretBox(appKey);
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  const permissions = (await sql('SELECT id, slug FROM permissions ORDER BY id')) as Array<{
    id: number;
    slug: string;
  }>;
  const only = (slugs: string[]) => permissions.filter((p) => slugs.includes(p.slug));
  let minute = 0;
  const at = () => new Date(BASE_TIME + minute++ * 60_000);

  const company = async (
    name: string,
    parent: SeedCompany | null,
    isAgency: boolean,
    timeZone: string,
    settings: object,
  ) => {
    const [created] = await sql(
      `INSERT INTO companies (name, parent_id, is_agency, time_zone, settings, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id`,
      [name, parent?.id ?? null, isAgency, timeZone, JSON.stringify(settings), now],
    );
    return { id: created.id as number, name };
  };
  const acme = await company('Acme Agency', null, true, 'America/New_York', {
    minCarriersToFlag: 2,
    numberAiLocalPresence: 'All',
  });
  const beta = await company('Beta Clinic', acme, false, 'America/Chicago', {
    minCarriersToFlag: 1,
    numberAiLocalPresence: 'Unassigned',
  });
  const gamma = await company('Gamma Solar', null, false, 'UTC', {
    minCarriersToFlag: 3,
    numberAiLocalPresence: 'All',
  });

  const role = async (company: SeedCompany, title: string, granted: Array<{ id: number }>, isOwner = false) => {
    const time = at();
    const [created] = await sql(
      `INSERT INTO roles (company_id, title, is_owner, created_at, updated_at) VALUES ($1, $2, $3, $4, $4) RETURNING id`,
      [company.id, title, isOwner, time],
    );
    await sql('INSERT INTO role_permissions (role_id, permission_id) SELECT $1, unnest($2::int[])', [
      created.id,
      granted.map((p) => p.id),
    ]);
    return created.id as number;
  };
  const user = (company: SeedCompany, roleId: number, name: string, email: string) => {
    const time = at();
    return sql(
      `INSERT INTO users (company_id, role_id, name, email, password_hash, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6)`,
      [company.id, roleId, name, email, passwordHash, time],
    );
  };

  const acmeOwner = await role(acme, 'Owner', permissions, true);
  const supervisor = await role(
    acme,
    'Supervisor',
    permissions.filter((p) => !SUPERVISOR_WITHOUT.includes(p.slug)),
  );
  await role(
    acme,
    'Sales Agent',
    only(['view-phone-numbers', 'view-ai-dashboard', 'view-pipelines', 'view-workflows']),
  );
  await role(acme, 'Billing', only(['view-phone-numbers', 'purchase-phone-numbers']));
  await role(acme, 'Auditor', only(['view-role', 'view-spam-protected-numbers', 'view-ai-dashboard', 'view-webhooks']));
  const betaOwner = await role(beta, 'Owner', permissions, true);
  await role(beta, 'Front Desk', only(['view-ai-dashboard', 'view-phone-numbers']));
  await role(beta, 'Supervisor', only(['view-ai-dashboard']));
  const gammaOwner = await role(gamma, 'Owner', permissions, true);
  await role(gamma, 'Sales Rep', only(['view-pipelines', 'edit-pipelines']));

  await user(acme, acmeOwner, 'Avery Acme', 'owner@acme.test');
  await user(acme, supervisor, 'Sam Supervisor', 'supervisor@acme.test');
  await user(beta, betaOwner, 'Blake Beta', 'owner@beta.test');
  await user(gamma, gammaOwner, 'Gale Gamma', 'owner@gamma.test');

  for (const [i, company] of [acme, beta, gamma].entries()) {
    await seedCrm(sql, company, at);
    const { agents, spam: numbers } = await seedCalls(sql, company, i, now);
    await seedNumbers(sql, company, i, agents, now);
    for (const spam of numbers)
      await sql(
        `INSERT INTO spam_protected_numbers (company_id, type, status, pnumber, flagged_carriers, carriers_checked,
           latest_check_at, renews_at, auto_renew, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
        [company.id, ...spam],
      );
    await seedTelcoAccount(sql, company, ['acme', 'beta', 'gamma'][i], box, now);
    if (company === acme) await seedDemoCampaign(sql, company, agents[0].id, now);
  }
  // One webhook, switched off until it points at a real receiver (its secret is fixed, like the rest of the data).
  await sql(
    `INSERT INTO webhooks (company_id, title, url, list_selection, form_data, events, active, secret_sealed, created_at,
       updated_at) VALUES ($1, $2, $3, $4, $5, $6, false, $7, $8, $8)`,
    [
      acme.id,
      'CRM sync (example)',
      'https://hooks.example.com/switchboard',
      'Contact',
      JSON.stringify(['phone_number', 'first_name', 'last_name', 'email']),
      JSON.stringify(['call.ended', 'appointment.scheduled', 'agent.status_changed']),
      box.seal(`whsec_${createHash('sha256').update('switchboard-demo-webhook').digest('base64')}`),
      at(),
    ],
  );
}

const PIPELINES: Array<[string, string | null, string[]]> = [
  ['Inbound Leads', 'loc-main-office', ['New', 'Contacted', 'Qualified', 'Won', 'Lost']],
  ['Outbound Campaign', null, ['Queued', 'Called', 'Callback', 'Booked']],
  ['Renewals', null, ['Due', 'Reminded', 'Renewed']],
];

const FOLDERS: Array<[string, Array<[string, WorkflowStatus]>]> = [
  [
    'Lead follow-up',
    [
      ['Missed call text-back', WorkflowStatus.active],
      ['New lead welcome', WorkflowStatus.active],
      ['Old lead revival', WorkflowStatus.inactive],
    ],
  ],
  [
    'Appointments',
    [
      ['Appointment reminder', WorkflowStatus.active],
      ['No-show follow-up', WorkflowStatus.draft],
    ],
  ],
  ['Archive', [['Holiday promo', WorkflowStatus.inactive]]],
];

/** The graph of a demo workflow: a call or SMS trigger, then a few actions. */
const demoGraph = (name: string): TriggerConfig => ({
  nodes: [
    {
      id: 'trigger',
      kind: 'trigger' as const,
      type: name.includes('text') ? 'call.ended' : 'lead.generated',
      config: {},
    },
    { id: 'wait', kind: 'action' as const, type: 'wait', config: { amount: 5, unit: 'minutes' } },
    { id: 'sms', kind: 'action' as const, type: 'send_sms', config: { message: `Hi from ${name}!` } },
  ],
  edges: [
    { from: 'trigger', to: 'wait' },
    { from: 'wait', to: 'sms' },
  ],
});

/** The company's pipelines with their stages, and its workflow folders and workflows (all SQL's: services/). */
async function seedCrm(sql: SeedStatement, company: SeedCompany, at: () => Date): Promise<void> {
  for (const [name, location, stages] of PIPELINES) {
    const [pipeline] = await sql(
      `INSERT INTO pipelines (company_id, name, crm_location_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
       RETURNING id`,
      [company.id, name, location ? `${location}-${company.name.split(' ')[0].toLowerCase()}` : null, at()],
    );
    for (const [i, stage] of stages.entries())
      await sql(
        'INSERT INTO pipeline_stages (pipeline_id, name, position, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)',
        [pipeline.id, stage, i + 1, at()],
      );
  }
  const workflow = async (folderId: number | null, name: string, status: WorkflowStatus, graph: boolean) =>
    sql(
      `INSERT INTO workflows (company_id, folder_id, name, status, description, trigger_config, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [
        company.id,
        folderId,
        name,
        status,
        graph ? `${name} (demo)` : null,
        graph ? JSON.stringify(demoGraph(name)) : null,
        at(),
      ],
    );
  for (const [i, [folderName, workflows]] of FOLDERS.entries()) {
    const [folder] = await sql(
      `INSERT INTO workflow_folders (company_id, name, sort_order, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
       RETURNING id`,
      [company.id, folderName, i + 1, at()],
    );
    for (const [name, status] of workflows) await workflow(folder.id as number, name, status, true);
  }
  await workflow(null, 'Uncategorized draft', WorkflowStatus.draft, false);
}
