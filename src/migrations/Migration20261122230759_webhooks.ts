import { Migration } from '@mikro-orm/migrations';

export class Migration20261122230759_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhooks" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "title" varchar(255) not null, "url" varchar(2048) not null, "method" varchar(8) not null default 'POST', "list_selection" varchar(16) not null default 'Basic', "form_data" jsonb not null, "events" jsonb not null, "active" boolean not null default true, "disabled_reason" varchar(16) null, "hits" int not null default 0, "last_hit" timestamptz null, "secret_sealed" text not null, "previous_secret_sealed" text null, "previous_secret_expires_at" timestamptz null, "failing_since" timestamptz null);`,
    );
    this.addSql(`create index "webhooks_company_id_created_at_index" on "webhooks" ("company_id", "created_at");`);

    this.addSql(
      `create table "webhook_deliveries" ("id" varchar(40) not null, "webhook_id" int not null, "company_id" int not null, "event" varchar(64) not null, "status" varchar(16) not null default 'pending', "payload" text not null, "attempt_count" int not null default 0, "final_attempt" int not null default 5, "next_attempt_at" timestamptz null, "last_attempt_at" timestamptz null, "last_status_code" int null, "in_flight_until" timestamptz null, "next_trigger" varchar(16) not null default 'scheduled', "created_at" timestamptz not null, constraint "webhook_deliveries_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "webhook_deliveries_created_at_index" on "webhook_deliveries" ("created_at");`);
    this.addSql(
      `create index "webhook_deliveries_due_index" on "webhook_deliveries" ("next_attempt_at") where "status" = 'pending';`,
    );
    this.addSql(
      `create index "webhook_deliveries_webhook_id_created_at_index" on "webhook_deliveries" ("webhook_id", "created_at");`,
    );

    this.addSql(
      `create table "webhook_attempts" ("id" serial primary key, "delivery_id" varchar(40) not null, "number" int not null, "trigger" varchar(16) not null, "attempted_at" timestamptz not null, "due_at" timestamptz null, "finished_at" timestamptz null, "status_code" int null, "duration_ms" int null, "response_body" text null, "error" text null);`,
    );
    this.addSql(
      `alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_number_unique" unique ("delivery_id", "number");`,
    );

    this.addSql(
      `alter table "webhooks" add constraint "webhooks_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_webhook_id_foreign" foreign key ("webhook_id") references "webhooks" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_foreign" foreign key ("delivery_id") references "webhook_deliveries" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_webhook_id_foreign";`);

    this.addSql(`alter table "webhook_attempts" drop constraint "webhook_attempts_delivery_id_foreign";`);

    this.addSql(`drop table if exists "webhooks" cascade;`);

    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);

    this.addSql(`drop table if exists "webhook_attempts" cascade;`);
  }
}
