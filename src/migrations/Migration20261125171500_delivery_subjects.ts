import { Migration } from '@mikro-orm/migrations';

/**
 * What each delivery concerns (call:5012, agent:7, campaign:12, contact:3), so
 * a company's deliveries can be found by subject across its webhooks.
 * Deliveries made before have none.
 */
export class Migration20261125171500_delivery_subjects extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "webhook_deliveries" add column "subjects" text[] not null default '{}';`);
    this.addSql(`create index "webhook_deliveries_subjects_index" on "webhook_deliveries" using gin ("subjects");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "webhook_deliveries_subjects_index";`);
    this.addSql(`alter table "webhook_deliveries" drop column "subjects";`);
  }
}
