import { Migration } from '@mikro-orm/migrations';

/**
 * Generated from the entities (npm run migration:create): a campaign's scheduled start, the decision endpoint asked
 * before each of its dials and its fallback, and the pre-dial decision each attempt was given (docs/dialer.md).
 */
export class Migration20261129132145_campaign_schedule_predial extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "campaigns" add column "starts_at" timestamptz null, add column "predial_endpoint_id" int null, add column "predial_fallback" varchar(8) not null default 'dial';`,
    );
    this.addSql(
      `alter table "campaigns" add constraint "campaigns_predial_endpoint_id_foreign" foreign key ("predial_endpoint_id") references "decision_endpoints" ("id") on update cascade on delete set null;`,
    );
    this.addSql(`create index "campaigns_status_starts_at_index" on "campaigns" ("status", "starts_at");`);

    this.addSql(`alter table "lead_attempts" add column "decision" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "campaigns" drop constraint "campaigns_predial_endpoint_id_foreign";`);

    this.addSql(`drop index "campaigns_status_starts_at_index";`);
    this.addSql(
      `alter table "campaigns" drop column "starts_at", drop column "predial_endpoint_id", drop column "predial_fallback";`,
    );

    this.addSql(`alter table "lead_attempts" drop column "decision";`);
  }
}
