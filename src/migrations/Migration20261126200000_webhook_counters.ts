import { Migration } from '@mikro-orm/migrations';

/**
 * An endpoint's counters apart from its configuration: every claim updates
 * the hits, the last hit and the rate limit's bucket, and a webhook row made
 * wide by its payload filters and custom headers (up to 2 kB before
 * PostgreSQL moves values out of line) left no room on its page for the next
 * version. Such updates could not stay on their page (HOT): they wrote index
 * entries and grew `webhooks` by a page every few claims, which each claim's
 * scan of the endpoints then read. Narrow rows with half of each page free
 * keep every such update on its page; the webhook row changes only when its
 * configuration or state does.
 */
export class Migration20261126200000_webhook_counters extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhook_counters" ("webhook_id" int not null, "hits" int not null default 0, "last_hit" timestamptz null, "rate_tokens" double precision null, "rate_checked_at" timestamptz null, constraint "webhook_counters_pkey" primary key ("webhook_id")) with (fillfactor = 50);`,
    );
    this.addSql(
      `alter table "webhook_counters" add constraint "webhook_counters_webhook_id_foreign" foreign key ("webhook_id") references "webhooks" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `insert into "webhook_counters" ("webhook_id", "hits", "last_hit", "rate_tokens", "rate_checked_at") select "id", "hits", "last_hit", "rate_tokens", "rate_checked_at" from "webhooks" where "hits" > 0 or "rate_tokens" is not null;`,
    );
    this.addSql(
      `alter table "webhooks" drop column "hits", drop column "last_hit", drop column "rate_tokens", drop column "rate_checked_at";`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "webhooks" add column "hits" int not null default 0, add column "last_hit" timestamptz null, add column "rate_tokens" double precision null, add column "rate_checked_at" timestamptz null;`,
    );
    this.addSql(
      `update "webhooks" w set "hits" = c."hits", "last_hit" = c."last_hit", "rate_tokens" = c."rate_tokens", "rate_checked_at" = c."rate_checked_at" from "webhook_counters" c where c."webhook_id" = w."id";`,
    );
    this.addSql(`drop table "webhook_counters";`);
  }
}
