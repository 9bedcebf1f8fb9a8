import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency keys: per company and key, a fingerprint of the request and the
 * answer it got, kept 24 hours; written in the transaction of the write.
 */
export class Migration20261126140000_idempotency_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "idempotency_keys" ("company_id" int not null, "key" varchar(255) not null, "fingerprint" varchar(64) not null, "status" int not null, "body" text not null, "created_at" timestamptz not null, constraint "idempotency_keys_pkey" primary key ("company_id", "key"));`,
    );
    this.addSql(
      `alter table "idempotency_keys" add constraint "idempotency_keys_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`create index "idempotency_keys_created_at_index" on "idempotency_keys" ("created_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
  }
}
