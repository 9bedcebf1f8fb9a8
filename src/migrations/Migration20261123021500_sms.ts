import { Migration } from '@mikro-orm/migrations';

/** SMS messages (sent through the provider, or received from it) and the messaging permissions. */
export class Migration20261123021500_sms extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "sms_messages" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "provider_message_sid" varchar(64) not null, "direction" varchar(8) not null, "from_number" varchar(20) not null, "to_number" varchar(20) not null, "body" text not null, "status" varchar(16) not null, "error_code" varchar(16) null, "in_reply_to_id" int null);`,
    );
    this.addSql(
      `alter table "sms_messages" add constraint "sms_messages_provider_message_sid_unique" unique ("provider_message_sid");`,
    );
    this.addSql(
      `create index "sms_messages_company_id_created_at_index" on "sms_messages" ("company_id", "created_at");`,
    );
    this.addSql(
      `create index "sms_messages_company_id_to_number_created_at_index" on "sms_messages" ("company_id", "to_number", "created_at") where "direction" = 'outbound';`,
    );
    this.addSql(
      `alter table "sms_messages" add constraint "sms_messages_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "sms_messages" add constraint "sms_messages_in_reply_to_id_foreign" foreign key ("in_reply_to_id") references "sms_messages" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `insert into "modules" ("slug", "name", "sort_order") select 'messaging', 'Messaging', coalesce(max("sort_order"), 0) + 1 from "modules";`,
    );
    this.addSql(
      `insert into "permissions" ("slug", "name", "module_id") select 'view-sms', 'View the SMS log', "id" from "modules" where "slug" = 'messaging';`,
    );
    this.addSql(
      `insert into "permissions" ("slug", "name", "module_id") select 'send-sms', 'Send SMS', "id" from "modules" where "slug" = 'messaging';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "sms_messages" cascade;`);
    this.addSql(`delete from "modules" where "slug" = 'messaging';`);
  }
}
