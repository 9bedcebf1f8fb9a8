import { Migration } from '@mikro-orm/migrations';

/** A webhook's custom headers (secret values sealed), and the names of those each attempt sent. */
export class Migration20261125170000_webhook_headers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "webhooks" add column "headers" jsonb not null default '[]';`);
    this.addSql(`alter table "webhook_attempts" add column "header_names" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhook_attempts" drop column "header_names";`);
    this.addSql(`alter table "webhooks" drop column "headers";`);
  }
}
