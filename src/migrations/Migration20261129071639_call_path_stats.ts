import { Migration } from '@mikro-orm/migrations';

/**
 * Generated from the entities (npm run migration:create): call_path_stats, each decision endpoint's and agent tool's
 * questions by outcome, with the time Switchboard added and the endpoint's own, per minute and per quarter hour
 * (entities/call-path-stat.entity.ts).
 */
export class Migration20261129071639_call_path_stats extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "call_path_stats" ("kind" varchar(16) not null, "endpoint_id" int not null, "span" smallint not null, "bucket" timestamptz not null, "company_id" int not null, "answered" int not null default 0, "timeout" int not null default 0, "error" int not null default 0, "invalid" int not null default 0, "unreachable" int not null default 0, "breaker_open" int not null default 0, "hedged" int not null default 0, "breaker_openings" int not null default 0, "added_lt_1" int not null default 0, "added_lt_2" int not null default 0, "added_lt_5" int not null default 0, "added_lt_10" int not null default 0, "added_lt_25" int not null default 0, "added_lt_50" int not null default 0, "added_lt_100" int not null default 0, "added_lt_250" int not null default 0, "added_lt_500" int not null default 0, "added_lt_1000" int not null default 0, "added_lt_2500" int not null default 0, "added_lt_5000" int not null default 0, "added_lt_10000" int not null default 0, "added_ge_10000" int not null default 0, "endpoint_lt_1" int not null default 0, "endpoint_lt_2" int not null default 0, "endpoint_lt_5" int not null default 0, "endpoint_lt_10" int not null default 0, "endpoint_lt_25" int not null default 0, "endpoint_lt_50" int not null default 0, "endpoint_lt_100" int not null default 0, "endpoint_lt_250" int not null default 0, "endpoint_lt_500" int not null default 0, "endpoint_lt_1000" int not null default 0, "endpoint_lt_2500" int not null default 0, "endpoint_lt_5000" int not null default 0, "endpoint_lt_10000" int not null default 0, "endpoint_ge_10000" int not null default 0, constraint "call_path_stats_pkey" primary key ("kind", "endpoint_id", "span", "bucket"));`,
    );
    this.addSql(
      `create index "call_path_stats_company_id_kind_span_bucket_index" on "call_path_stats" ("company_id", "kind", "span", "bucket");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "call_path_stats" cascade;`);
  }
}
