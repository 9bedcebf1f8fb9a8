import { Migration } from '@mikro-orm/migrations';

export class Migration20261121154636_phone_numbers extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "consumed_tokens" ("jti" varchar(64) not null, "consumed_at" timestamptz not null, constraint "consumed_tokens_pkey" primary key ("jti"));`,
    );

    this.addSql(
      `create table "messaging_campaigns" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "messaging_service_sid" varchar(64) not null, "campaign_sid" varchar(64) null, "name" varchar(255) not null, "status" varchar(32) not null, "use_case" varchar(64) not null);`,
    );
    this.addSql(
      `alter table "messaging_campaigns" add constraint "messaging_campaigns_company_id_messaging_service_sid_unique" unique ("company_id", "messaging_service_sid");`,
    );

    this.addSql(
      `create table "phone_numbers" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "phone_no" varchar(20) not null, "provider" varchar(32) not null default 'telco', "provider_sid" varchar(64) null, "status" text check ("status" in ('Verified', 'Unverified')) not null default 'Unverified', "use_for" text check ("use_for" in ('ai', 'dialer', 'both')) not null default 'both', "dialable" boolean not null default true, "ai_active" boolean not null default false, "phone_type" varchar(32) not null default 'local', "phone_title" varchar(255) null, "has_spam_protection" boolean not null default false, "tendlc" varchar(3) null, "chatbot_agent_id" int null, "messaging_service_sid" varchar(64) null);`,
    );
    this.addSql(`alter table "phone_numbers" add constraint "phone_numbers_phone_no_unique" unique ("phone_no");`);
    this.addSql(
      `alter table "phone_numbers" add constraint "phone_numbers_provider_sid_unique" unique ("provider_sid");`,
    );
    this.addSql(
      `create index "phone_numbers_company_id_created_at_index" on "phone_numbers" ("company_id", "created_at");`,
    );

    this.addSql(
      `create table "telco_accounts" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "account_sid" varchar(64) not null, "auth_token_sealed" text not null, "balance" numeric(12,2) null);`,
    );
    this.addSql(
      `alter table "telco_accounts" add constraint "telco_accounts_company_id_unique" unique ("company_id");`,
    );

    this.addSql(
      `alter table "messaging_campaigns" add constraint "messaging_campaigns_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "phone_numbers" add constraint "phone_numbers_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "phone_numbers" add constraint "phone_numbers_chatbot_agent_id_foreign" foreign key ("chatbot_agent_id") references "agents" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "telco_accounts" add constraint "telco_accounts_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `create index "phone_numbers_phone_no_trgm_index" on "phone_numbers" using gin ("phone_no" gin_trgm_ops);`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "consumed_tokens" cascade;`);

    this.addSql(`drop table if exists "messaging_campaigns" cascade;`);

    this.addSql(`drop table if exists "phone_numbers" cascade;`);

    this.addSql(`drop table if exists "telco_accounts" cascade;`);
  }
}
