import { Migration } from '@mikro-orm/migrations';

export class Migration20261121153925_spam_calls extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "agents" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "name" varchar(255) not null, "active" boolean not null default true, "online" boolean not null default false);`,
    );
    this.addSql(`create index "agents_company_id_name_index" on "agents" ("company_id", "name");`);

    this.addSql(
      `create table "calls" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "agent_id" int null, "provider_call_id" varchar(64) null, "from_number" varchar(20) not null, "to_number" varchar(20) not null, "started_at" timestamptz not null, "duration_seconds" int not null default 0, "status" varchar(32) not null, "direction" varchar(16) not null, "sentiment" varchar(16) null, "recording_url" varchar(2048) null, "transcript" text null, "disposition" varchar(64) null, "tags" jsonb not null default '[]', "custom_fields" jsonb not null default '{}', "appointment_at" timestamptz null, "contact_name" varchar(255) null, "contact_email" varchar(255) null);`,
    );
    this.addSql(`create index "calls_agent_id_index" on "calls" ("agent_id");`);
    this.addSql(`alter table "calls" add constraint "calls_provider_call_id_unique" unique ("provider_call_id");`);
    this.addSql(`create index "calls_company_id_started_at_index" on "calls" ("company_id", "started_at");`);

    this.addSql(
      `create table "spam_protected_numbers" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "type" text check ("type" in ('AI', 'House', 'Custom')) not null, "status" text check ("status" in ('In Progress', 'Flagged', 'Clean')) not null default 'In Progress', "pnumber" varchar(20) not null, "flagged_carriers" jsonb not null default '[]', "carriers_checked" jsonb not null default '[]', "latest_check_at" timestamptz null, "renews_at" timestamptz not null, "auto_renew" boolean not null default true);`,
    );
    this.addSql(
      `create index "spam_protected_numbers_company_id_created_at_index" on "spam_protected_numbers" ("company_id", "created_at");`,
    );

    this.addSql(`create index "agents_name_trgm_index" on "agents" using gin ("name" gin_trgm_ops);`);
    this.addSql(
      `create index "spam_protected_numbers_pnumber_trgm_index" on "spam_protected_numbers" using gin ("pnumber" gin_trgm_ops);`,
    );
    this.addSql(
      `create index "calls_company_id_started_at_appointments_index" on "calls" ("company_id", "started_at") where "appointment_at" is not null;`,
    );

    this.addSql(
      `alter table "agents" add constraint "agents_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "calls" add constraint "calls_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "calls" add constraint "calls_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "spam_protected_numbers" add constraint "spam_protected_numbers_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "calls" drop constraint "calls_agent_id_foreign";`);

    this.addSql(`drop table if exists "agents" cascade;`);

    this.addSql(`drop table if exists "calls" cascade;`);

    this.addSql(`drop table if exists "spam_protected_numbers" cascade;`);
  }
}
