import { Migration } from '@mikro-orm/migrations';

/**
 * Generated from the entities (npm run migration:create): webhook_stats, each webhook's attempts by outcome and
 * answer times per minute and per quarter hour, kept by the delivery engine as it settles attempts
 * (entities/webhook-stat.entity.ts).
 */
export class Migration20261129051046_webhook_stats extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhook_stats" ("webhook_id" int not null, "span" smallint not null, "bucket" timestamptz not null, "company_id" int not null, "success" int not null default 0, "client_error" int not null default 0, "server_error" int not null default 0, "timeout" int not null default 0, "network" int not null default 0, "broker_refused" int not null default 0, "interrupted" int not null default 0, "failed" int not null default 0, "lt_5" int not null default 0, "lt_10" int not null default 0, "lt_25" int not null default 0, "lt_50" int not null default 0, "lt_100" int not null default 0, "lt_250" int not null default 0, "lt_500" int not null default 0, "lt_1000" int not null default 0, "lt_2500" int not null default 0, "lt_5000" int not null default 0, "lt_10000" int not null default 0, "lt_30000" int not null default 0, "ge_30000" int not null default 0, constraint "webhook_stats_pkey" primary key ("webhook_id", "span", "bucket"));`,
    );
    this.addSql(
      `create index "webhook_stats_company_id_span_bucket_index" on "webhook_stats" ("company_id", "span", "bucket");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "webhook_stats" cascade;`);
  }
}
