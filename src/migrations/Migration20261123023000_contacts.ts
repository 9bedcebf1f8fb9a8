import { Migration } from '@mikro-orm/migrations';

/** Contacts: the people calls, SMS and leads concern (one per phone number per company). */
export class Migration20261123023000_contacts extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "contacts" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "phone_number" varchar(20) not null, "email" varchar(255) null, "first_name" varchar(255) null, "last_name" varchar(255) null, "address" varchar(255) null, "city" varchar(255) null, "state" varchar(255) null, "zip" varchar(32) null, "country" varchar(64) null, "company_name" varchar(255) null, "tags" jsonb not null default '[]', "custom_fields" jsonb not null default '{}');`,
    );
    this.addSql(
      `alter table "contacts" add constraint "contacts_company_id_phone_number_unique" unique ("company_id", "phone_number");`,
    );
    this.addSql(`create index "contacts_company_id_created_at_index" on "contacts" ("company_id", "created_at");`);
    this.addSql(
      `alter table "contacts" add constraint "contacts_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`alter table "calls" add column "contact_id" int null;`);
    this.addSql(
      `alter table "calls" add constraint "calls_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete set null;`,
    );
    this.addSql(`alter table "sms_messages" add column "contact_id" int null;`);
    this.addSql(
      `alter table "sms_messages" add constraint "sms_messages_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `insert into "modules" ("slug", "name", "sort_order") select 'contacts', 'Contacts', coalesce(max("sort_order"), 0) + 1 from "modules";`,
    );
    this.addSql(
      `insert into "permissions" ("slug", "name", "module_id") select 'view-contacts', 'View contacts', "id" from "modules" where "slug" = 'contacts';`,
    );
    this.addSql(
      `insert into "permissions" ("slug", "name", "module_id") select 'edit-contacts', 'Create and edit contacts', "id" from "modules" where "slug" = 'contacts';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "calls" drop column "contact_id";`);
    this.addSql(`alter table "sms_messages" drop column "contact_id";`);
    this.addSql(`drop table if exists "contacts" cascade;`);
    this.addSql(`delete from "modules" where "slug" = 'contacts';`);
  }
}
