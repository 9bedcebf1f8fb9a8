import { Migration } from '@mikro-orm/migrations';

// The permission catalog: a module for every area of the product and its
// permissions. Later features use these rows; new ones arrive by migration.

const CATALOG: Array<[string, string, Array<[string, string]>]> = [
  [
    'phone-numbers',
    'Phone numbers',
    [
      ['view-phone-numbers', 'View phone numbers'],
      ['edit-phone-numbers', 'Edit phone numbers'],
      ['purchase-phone-numbers', 'Purchase phone numbers'],
      ['import-phone-numbers', 'Import numbers and messaging campaigns'],
      ['manage-telco-account', 'Manage the telephony provider account'],
    ],
  ],
  [
    'ai-agents',
    'AI agents',
    [
      ['view-agents', 'View AI agents'],
      ['manage-agents', 'Create and edit AI agents'],
    ],
  ],
  [
    'spam-protection',
    'Spam protection',
    [
      ['view-spam-protected-numbers', 'View spam-protected numbers'],
      ['edit-spam-protected-numbers', 'Add and edit spam-protected numbers'],
      ['edit-spam-settings', 'Change the flagging threshold'],
    ],
  ],
  [
    'ai-dashboard',
    'AI dashboard',
    [
      ['view-ai-dashboard', 'View the AI dashboard'],
      ['edit-ai-dashboard-settings', 'Change AI dashboard settings'],
    ],
  ],
  [
    'pipelines',
    'Pipelines',
    [
      ['view-pipelines', 'View pipelines'],
      ['edit-pipelines', 'Create and edit pipelines and stages'],
    ],
  ],
  [
    'roles',
    'Roles and permissions',
    [
      ['view-role', 'View roles'],
      ['edit-role', 'Create and edit roles'],
      ['assign-role-permission', 'Assign permissions to roles'],
      ['delete-role', 'Delete roles'],
    ],
  ],
  [
    'workflows',
    'Workflows',
    [
      ['view-workflows', 'View workflows and folders'],
      ['edit-workflows', 'Create and edit workflows and folders'],
    ],
  ],
  [
    'webhooks',
    'Webhooks',
    [
      ['view-webhooks', 'View webhooks and deliveries'],
      ['manage-webhooks', 'Create, edit and re-send webhooks'],
    ],
  ],
];

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

export class Migration20261121151500 extends Migration {
  override async up(): Promise<void> {
    CATALOG.forEach(([slug, name, permissions], index) => {
      this.addSql(
        `insert into "modules" ("slug", "name", "sort_order") values (${quote(slug)}, ${quote(name)}, ${index + 1});`,
      );
      for (const [permission, label] of permissions) {
        this.addSql(
          `insert into "permissions" ("slug", "name", "module_id") select ${quote(permission)}, ${quote(label)}, "id" from "modules" where "slug" = ${quote(slug)};`,
        );
      }
    });
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "modules" where "slug" in (${CATALOG.map(([slug]) => quote(slug)).join(', ')});`);
  }
}
