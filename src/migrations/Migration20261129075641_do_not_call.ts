import { Migration } from '@mikro-orm/migrations';

/** Generated from the entities (npm run migration:create): each company's do-not-call list (entities/do-not-call-entry.entity.ts). */
export class Migration20261129075641_do_not_call extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "do_not_call" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "phone_number" varchar(20) not null, "source" varchar(16) not null, "note" varchar(255) null);`,
    );
    this.addSql(
      `create index "do_not_call_company_id_created_at_id_index" on "do_not_call" ("company_id", "created_at", "id");`,
    );
    this.addSql(
      `alter table "do_not_call" add constraint "do_not_call_company_id_phone_number_unique" unique ("company_id", "phone_number");`,
    );

    this.addSql(
      `alter table "do_not_call" add constraint "do_not_call_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "do_not_call" cascade;`);
  }
}
