import { Migration } from '@mikro-orm/migrations';

/**
 * Inbound routing decided by the company (docs/adr/0068-decisions-in-the-call-path.md):
 * its decision endpoints (one for the company, one per phone number at most),
 * what a call records of its decision, and the permissions to see and change them.
 */
export class Migration20261128040000_call_routing extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "decision_endpoints" (
      "id" serial primary key,
      "company_id" int not null references "companies" ("id") on delete cascade,
      "phone_number_id" int null references "phone_numbers" ("id") on delete cascade,
      "url" text not null,
      "secret_sealed" text not null,
      "deadline_ms" int not null default 2000,
      "hedge" boolean not null default false,
      "fallback_action" varchar(16) not null,
      "fallback_agent_id" int null references "agents" ("id") on delete set null,
      "fallback_forward_to" varchar(16) null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null);`);
    this.addSql(
      `create unique index "decision_endpoints_scope_unique" on "decision_endpoints" ("company_id", coalesce("phone_number_id", 0));`,
    );
    this.addSql(`alter table "calls" add column "decided_by" varchar(16) null,
      add column "decision_action" varchar(16) null,
      add column "decision_target" text null,
      add column "decision_reason" text null,
      add column "decision_latency_ms" int null,
      add column "decision_variables" jsonb null;`);
    this.addSql(`insert into "modules" ("slug", "name", "sort_order")
      select 'call-routing', 'Call routing', coalesce(max("sort_order"), 0) + 1 from "modules";`);
    this.addSql(`insert into "permissions" ("slug", "name", "module_id")
      select p.slug, p.name, m.id from "modules" m,
      (values ('view-call-routing', 'View decision endpoints'), ('manage-call-routing', 'Create, edit and delete decision endpoints')) as p(slug, name)
      where m.slug = 'call-routing';`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "modules" where "slug" = 'call-routing';`);
    this.addSql(`alter table "calls" drop column "decided_by", drop column "decision_action", drop column "decision_target",
      drop column "decision_reason", drop column "decision_latency_ms", drop column "decision_variables";`);
    this.addSql(`drop table "decision_endpoints";`);
  }
}
