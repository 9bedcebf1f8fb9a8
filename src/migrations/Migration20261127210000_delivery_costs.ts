import { Migration } from '@mikro-orm/migrations';

/**
 * What a delivery costs the database (docs/adr/0061-delivery-costs.md):
 *
 * - An endpoint's attempts in flight are a counter beside its hits, raised by
 *   the claim and lowered by the statement that closes each lease. Counting
 *   leased deliveries read every version a claim or a settle had left in the
 *   index until a vacuum came, and every claim and settle did it.
 * - What a delivery concerns (its subjects) is its event's: the deliveries'
 *   own copy and its GIN index go, and the events' subjects get one. Each
 *   delivery wrote the index three times (insert, claim, settle); an event
 *   writes it once for all its deliveries.
 * - The deliveries of one event are found by the event first, so the unique
 *   index on (webhook, event) leads with the event.
 * - Attempts keep room on their pages: the result recorded on an attempt
 *   stays on its page (a HOT update) and writes no index entry.
 * - Two indexes every claim and settle wrote and only upkeep read go: the
 *   retention's purge takes each webhook's old deliveries by (webhook,
 *   created_at), and the count of due deliveries for the metrics reads the
 *   index of each webhook's due deliveries.
 */
export class Migration20261127210000_delivery_costs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "webhook_counters" add column "in_flight" int not null default 0;`);
    this.addSql(
      `insert into "webhook_counters" ("webhook_id", "in_flight") select "webhook_id", count(*)::int from "webhook_deliveries" where "lease_token" is not null group by "webhook_id" on conflict ("webhook_id") do update set "in_flight" = excluded."in_flight";`,
    );
    this.addSql(`drop index "webhook_deliveries_webhook_leased_index";`);
    this.addSql(`create index "events_subjects_index" on "events" using gin ("subjects");`);
    this.addSql(`drop index "webhook_deliveries_subjects_index";`);
    this.addSql(`alter table "webhook_deliveries" drop column "subjects";`);
    this.addSql(`drop index "webhook_deliveries_event_index";`);
    this.addSql(
      `create unique index "webhook_deliveries_event_index" on "webhook_deliveries" ("event_id", "webhook_id") where "event_id" is not null;`,
    );
    this.addSql(`alter table "webhook_attempts" set (fillfactor = 80);`);
    this.addSql(`drop index "webhook_deliveries_created_at_index";`);
    this.addSql(`drop index "webhook_deliveries_due_index";`);
  }

  override async down(): Promise<void> {
    this.addSql(
      `create index "webhook_deliveries_due_index" on "webhook_deliveries" ("next_attempt_at") where "status" = 'pending';`,
    );
    this.addSql(`create index "webhook_deliveries_created_at_index" on "webhook_deliveries" ("created_at");`);
    this.addSql(`alter table "webhook_attempts" reset (fillfactor);`);
    this.addSql(`drop index "webhook_deliveries_event_index";`);
    this.addSql(
      `create unique index "webhook_deliveries_event_index" on "webhook_deliveries" ("webhook_id", "event_id") where "event_id" is not null;`,
    );
    this.addSql(`alter table "webhook_deliveries" add column "subjects" text[] not null default '{}';`);
    this.addSql(
      `update "webhook_deliveries" d set "subjects" = e."subjects" from "events" e where e."id" = d."event_id";`,
    );
    this.addSql(`create index "webhook_deliveries_subjects_index" on "webhook_deliveries" using gin ("subjects");`);
    this.addSql(`drop index "events_subjects_index";`);
    this.addSql(
      `create index "webhook_deliveries_webhook_leased_index" on "webhook_deliveries" ("webhook_id") where "lease_token" is not null;`,
    );
    this.addSql(`alter table "webhook_counters" drop column "in_flight";`);
  }
}
