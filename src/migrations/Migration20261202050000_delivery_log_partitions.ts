import { Migration } from '@mikro-orm/migrations';
import { encodeTime } from 'ulid';

/**
 * The delivery log (deliveries, their attempts, events) partitioned by time, so that retention drops whole
 * partitions instead of deleting rows (docs/adr/0089-delivery-log-partitions.md). Each table is partitioned by
 * the range of its key, a ULID after a prefix, whose first ten characters are the time it was made: a lookup by
 * id reads one partition. Attempts are partitioned by their delivery's id, so a delivery and its attempts share
 * a range. Each table gets a default partition, and time partitions from today for a week (four days each, as for
 * the default retention); the retention job makes them ahead from then on (webhooks/engine/partitions.ts). Rows
 * already kept move into the partitions of their time, the older ones into the default partitions, where the
 * row-by-row purge ages them out.
 *
 * Uniqueness on a partitioned table must include its key: an attempt's key becomes (delivery, number), and one
 * delivery per (event, webhook) is no longer an index's to enforce (a replay holds the webhook's lock).
 */
const EVENT_INDEX = 'on "webhook_deliveries" ("event_id", "webhook_id") where "event_id" is not null;';
/** The tables' other indexes, as before: on a partitioned table, each partition gets its own. */
const INDEXES = `create index "webhook_deliveries_lease_expiry_index" on "webhook_deliveries" ("in_flight_until") where "lease_token" is not null;
create index "webhook_deliveries_order_pending_index" on "webhook_deliveries" ("webhook_id", "order_key", "created_at", "id") where "status" = 'pending' and "order_key" is not null;
create index "webhook_deliveries_webhook_due_index" on "webhook_deliveries" ("webhook_id", "next_attempt_at", "id") where "status" = 'pending' and "next_attempt_at" is not null;
create index "webhook_deliveries_webhook_id_created_at_index" on "webhook_deliveries" ("webhook_id", "created_at");
create index "events_company_id_occurred_at_index" on "events" ("company_id", "occurred_at");
create index "events_company_tx_index" on "events" ("company_id", "tx", "id");
create index "events_filtered_by_index" on "events" using gin ("filtered_by");
create index "events_occurred_at_index" on "events" ("occurred_at");
create index "events_subjects_index" on "events" using gin ("subjects");`;

export class Migration20261202050000_delivery_log_partitions extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "webhook_deliveries" rename to "webhook_deliveries_unpartitioned";');
    this.addSql('alter table "webhook_attempts" rename to "webhook_attempts_unpartitioned";');
    this.addSql('alter table "events" rename to "events_unpartitioned";');

    this.addSql(`create table "webhook_deliveries" (
  "id" varchar(40) not null, "webhook_id" int not null, "company_id" int not null, "event" varchar(64) not null,
  "status" varchar(16) not null default 'pending', "payload" text not null, "attempt_count" int not null default 0,
  "final_attempt" int not null default 5, "next_attempt_at" timestamptz null, "last_attempt_at" timestamptz null,
  "last_status_code" int null, "in_flight_until" timestamptz null,
  "next_trigger" varchar(16) not null default 'scheduled', "created_at" timestamptz not null,
  "lease_token" bigint null, "event_id" varchar(40) null, "trace_parent" varchar(55) null, "order_key" text null
) partition by range ("id");`);
    this.addSql(`create table "webhook_attempts" (
  "delivery_id" varchar(40) not null, "number" int not null, "trigger" varchar(16) not null,
  "attempted_at" timestamptz not null, "due_at" timestamptz null, "finished_at" timestamptz null,
  "status_code" int null, "duration_ms" int null, "response_body" text null, "error" text null,
  "header_names" jsonb null
) partition by range ("delivery_id");`);
    this.addSql(`create table "events" (
  "id" varchar(40) not null, "company_id" int not null, "type" varchar(64) not null, "data" json not null,
  "contact" json null, "occurred_at" timestamptz not null, "subjects" text[] not null default '{}',
  "filtered_by" int[] not null default '{}', "tx" xid8 not null default pg_current_xact_id()
) partition by range ("id");`);
    this.addSql('create table "webhook_deliveries_default" partition of "webhook_deliveries" default;');
    this.addSql(
      'create table "webhook_attempts_default" partition of "webhook_attempts" default with (fillfactor = 80);',
    );
    this.addSql('create table "events_default" partition of "events" default;');
    const day = 86_400_000;
    const span = 4 * day;
    const today = Math.floor(Date.now() / day) * day;
    for (const [table, prefix, options] of [
      ['webhook_deliveries', 'msg_', ''],
      ['webhook_attempts', 'msg_', ' with (fillfactor = 80)'],
      ['events', 'evt_', ''],
    ]) {
      for (let from = today; from < today + 8 * day; from += span) {
        const name = `${table}_p${new Date(from).toISOString().slice(0, 10).replaceAll('-', '')}`;
        this.addSql(
          `create table "${name}" partition of "${table}" for values from ('${prefix}${encodeTime(from, 10)}') to ('${prefix}${encodeTime(from + span, 10)}')${options};`,
        );
      }
    }

    this.addSql(`insert into "webhook_deliveries" ("id", "webhook_id", "company_id", "event", "status", "payload",
  "attempt_count", "final_attempt", "next_attempt_at", "last_attempt_at", "last_status_code", "in_flight_until",
  "next_trigger", "created_at", "lease_token", "event_id", "trace_parent", "order_key")
  select "id", "webhook_id", "company_id", "event", "status", "payload", "attempt_count", "final_attempt",
    "next_attempt_at", "last_attempt_at", "last_status_code", "in_flight_until", "next_trigger", "created_at",
    "lease_token", "event_id", "trace_parent", "order_key" from "webhook_deliveries_unpartitioned";`);
    this.addSql(`insert into "webhook_attempts" ("delivery_id", "number", "trigger", "attempted_at", "due_at",
  "finished_at", "status_code", "duration_ms", "response_body", "error", "header_names")
  select "delivery_id", "number", "trigger", "attempted_at", "due_at", "finished_at", "status_code", "duration_ms",
    "response_body", "error", "header_names" from "webhook_attempts_unpartitioned";`);
    this.addSql(`insert into "events" ("id", "company_id", "type", "data", "contact", "occurred_at", "subjects",
  "filtered_by", "tx")
  select "id", "company_id", "type", "data", "contact", "occurred_at", "subjects", "filtered_by", "tx"
  from "events_unpartitioned";`);
    this.addSql(
      'drop table "webhook_deliveries_unpartitioned", "webhook_attempts_unpartitioned", "events_unpartitioned";',
    );

    this.addSql('alter table "webhook_deliveries" add constraint "webhook_deliveries_pkey" primary key ("id");');
    this.addSql(
      'alter table "webhook_attempts" add constraint "webhook_attempts_pkey" primary key ("delivery_id", "number");',
    );
    this.addSql('alter table "events" add constraint "events_pkey" primary key ("id");');
    this.addSql(
      'alter table "events" add constraint "events_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;',
    );
    this.addSql(`create index "webhook_deliveries_event_index" ${EVENT_INDEX}\n${INDEXES}`);
    this.addSql(
      'create trigger "webhook_deliveries_deleted" after delete on "webhook_deliveries" referencing old table as gone for each statement execute function "webhook_deliveries_deleted"();',
    );
    this.addSql('analyze "webhook_deliveries", "webhook_attempts", "events";');
  }

  override async down(): Promise<void> {
    // Back to one table each: every partition's rows into it.
    for (const table of ['webhook_deliveries', 'webhook_attempts', 'events']) {
      this.addSql(`create table "${table}_flat" (like "${table}" including defaults);`);
      this.addSql(`insert into "${table}_flat" select * from "${table}";`);
      this.addSql(`drop table "${table}" cascade;`);
      this.addSql(`alter table "${table}_flat" rename to "${table}";`);
    }
    this.addSql('alter table "webhook_attempts" add column "id" serial;');
    this.addSql('alter table "webhook_attempts" add constraint "webhook_attempts_pkey" primary key ("id");');
    this.addSql(
      'alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_number_unique" unique ("delivery_id", "number");',
    );
    this.addSql('alter table "webhook_attempts" set (fillfactor = 80);');
    this.addSql('alter table "webhook_deliveries" add constraint "webhook_deliveries_pkey" primary key ("id");');
    this.addSql('alter table "events" add constraint "events_pkey" primary key ("id");');
    this.addSql(
      'alter table "events" add constraint "events_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;',
    );
    this.addSql(`create unique index "webhook_deliveries_event_index" ${EVENT_INDEX}\n${INDEXES}`);
    this.addSql(
      'create trigger "webhook_deliveries_deleted" after delete on "webhook_deliveries" referencing old table as gone for each statement execute function "webhook_deliveries_deleted"();',
    );
  }
}
