import { Migration } from '@mikro-orm/migrations';

/**
 * Post-call analysis (call.analyzed): a call's summary, whether it reached
 * its goal, the company's own analysis fields and when it was analysed; and
 * the permission to record an analysis through the API.
 */
export class Migration20261126150000_call_analysis extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "calls" add column "summary" text null, add column "successful" boolean null, add column "custom_analysis" jsonb not null default '{}', add column "analyzed_at" timestamptz null;`,
    );
    this.addSql(
      `insert into "permissions" ("slug", "name", "module_id") select 'analyze-calls', 'Record the analysis of a call', "id" from "modules" where "slug" = 'ai-dashboard';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "permissions" where "slug" = 'analyze-calls';`);
    this.addSql(
      `alter table "calls" drop column "summary", drop column "successful", drop column "custom_analysis", drop column "analyzed_at";`,
    );
  }
}
