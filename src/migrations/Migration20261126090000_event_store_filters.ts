import { Migration } from '@mikro-orm/migrations';

/**
 * The event store and payload filters: every domain event of a company is
 * kept for the retention window whether or not a delivery was made (so the
 * events a webhook never received can be replayed), with the webhooks whose
 * filters turned it away; each delivery names its event; each webhook keeps
 * its filters by event type.
 */
export class Migration20261126090000_event_store_filters extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "events" ("id" varchar(40) not null, "company_id" int not null, "type" varchar(64) not null, "data" json not null, "contact" json null, "occurred_at" timestamptz not null, "subjects" text[] not null default '{}', "filtered_by" int[] not null default '{}', constraint "events_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "events" add constraint "events_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`create index "events_company_id_occurred_at_index" on "events" ("company_id", "occurred_at");`);
    this.addSql(`create index "events_occurred_at_index" on "events" ("occurred_at");`);
    this.addSql(`create index "events_filtered_by_index" on "events" using gin ("filtered_by");`);
    this.addSql(`alter table "webhook_deliveries" add column "event_id" varchar(40) null;`);
    this.addSql(
      `create unique index "webhook_deliveries_event_index" on "webhook_deliveries" ("webhook_id", "event_id") where "event_id" is not null;`,
    );
    this.addSql(`alter table "webhooks" add column "filters" jsonb not null default '{}';`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhooks" drop column "filters";`);
    this.addSql(`drop index "webhook_deliveries_event_index";`);
    this.addSql(`alter table "webhook_deliveries" drop column "event_id";`);
    this.addSql(`drop table if exists "events" cascade;`);
  }
}
