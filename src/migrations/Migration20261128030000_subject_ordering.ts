import { Migration } from '@mikro-orm/migrations';

/**
 * Ordering per subject, when a webhook asks (docs/adr/0066-ordering-per-subject.md):
 * the webhook's choice, each of its deliveries' subject key, and the index a
 * claim asks "is an older delivery of this subject still pending?" (only the
 * rows of ordered webhooks are in it).
 */
export class Migration20261128030000_subject_ordering extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "webhooks" add column "ordering" varchar(16) not null default 'none';`);
    this.addSql(`alter table "webhook_deliveries" add column "order_key" text null;`);
    this.addSql(
      `create index "webhook_deliveries_order_pending_index" on "webhook_deliveries" ("webhook_id", "order_key", "created_at", "id") ` +
        `where "status" = 'pending' and "order_key" is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "webhook_deliveries_order_pending_index";`);
    this.addSql(`alter table "webhook_deliveries" drop column "order_key";`);
    this.addSql(`alter table "webhooks" drop column "ordering";`);
  }
}
