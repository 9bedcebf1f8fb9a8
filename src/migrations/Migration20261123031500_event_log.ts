import { Migration } from '@mikro-orm/migrations';

/** Recent domain events, for live subscriptions on every API process (NOTIFY carries the id). Kept one hour. */
export class Migration20261123031500_event_log extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "event_log" ("id" bigserial primary key, "company_id" int not null, "type" varchar(64) not null, "data" jsonb not null, "contact" jsonb null, "occurred_at" timestamptz not null);`,
    );
    this.addSql(`create index "event_log_occurred_at_index" on "event_log" ("occurred_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "event_log";`);
  }
}
