import { Migration } from '@mikro-orm/migrations';

/** Booking appointments on calls, dialer campaigns and leads: their permissions and tables. */
export class Migration20261123024500_appointments_campaigns extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `insert into "permissions" ("slug", "name", "module_id") select 'book-appointments', 'Book or move the appointment of a call', "id" from "modules" where "slug" = 'ai-dashboard';`,
    );
    this.addSql(
      `insert into "modules" ("slug", "name", "sort_order") select 'campaigns', 'Dialer campaigns and leads', coalesce(max("sort_order"), 0) + 1 from "modules";`,
    );
    this.addSql(
      `insert into "permissions" ("slug", "name", "module_id") select 'view-campaigns', 'View dialer campaigns and leads', "id" from "modules" where "slug" = 'campaigns';`,
    );
    this.addSql(
      `insert into "permissions" ("slug", "name", "module_id") select 'manage-campaigns', 'Create, start and complete campaigns; add leads', "id" from "modules" where "slug" = 'campaigns';`,
    );
    this.addSql(
      `create table "campaigns" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "name" varchar(255) not null, "status" varchar(16) not null default 'draft', "agent_id" int null, "started_at" timestamptz null, "completed_at" timestamptz null);`,
    );
    this.addSql(`create index "campaigns_company_id_created_at_index" on "campaigns" ("company_id", "created_at");`);
    this.addSql(
      `alter table "campaigns" add constraint "campaigns_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "campaigns" add constraint "campaigns_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `create table "leads" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "contact_id" int not null, "campaign_id" int null, "pipeline_stage_id" int null, "source" varchar(64) null);`,
    );
    this.addSql(`create index "leads_company_id_created_at_index" on "leads" ("company_id", "created_at");`);
    this.addSql(
      `alter table "leads" add constraint "leads_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "leads" add constraint "leads_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "leads" add constraint "leads_campaign_id_foreign" foreign key ("campaign_id") references "campaigns" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "leads" add constraint "leads_pipeline_stage_id_foreign" foreign key ("pipeline_stage_id") references "pipeline_stages" ("id") on update cascade on delete set null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "leads" cascade;`);
    this.addSql(`drop table if exists "campaigns" cascade;`);
    this.addSql(`delete from "permissions" where "slug" = 'book-appointments';`);
    this.addSql(`delete from "modules" where "slug" = 'campaigns';`);
  }
}
