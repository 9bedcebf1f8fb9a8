import { Migration } from '@mikro-orm/migrations';

/**
 * The delivery engine's bookkeeping: a lease token per claimed attempt (a
 * fencing token from one sequence, so a worker paused past its lease cannot
 * settle an attempt another worker claimed again); per webhook the adaptive
 * concurrency, an optional rate limit with its token bucket, and a pause that
 * honours Retry-After; the indexes the claim reads (due work per webhook,
 * attempts in flight per webhook).
 */
export class Migration20261124070000_delivery_engine extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create sequence if not exists "webhook_lease_seq";`);
    this.addSql(`alter table "webhook_deliveries" add column "lease_token" bigint null;`);
    this.addSql(
      `alter table "webhooks" add column "concurrency" int null, add column "rate_limit" int null, add column "rate_tokens" double precision null, add column "rate_checked_at" timestamptz null, add column "paused_until" timestamptz null;`,
    );
    this.addSql(
      `create index "webhook_deliveries_webhook_due_index" on "webhook_deliveries" ("webhook_id", "next_attempt_at", "id") where "status" = 'pending' and "next_attempt_at" is not null;`,
    );
    this.addSql(
      `create index "webhook_deliveries_webhook_leased_index" on "webhook_deliveries" ("webhook_id") where "lease_token" is not null;`,
    );
    this.addSql(
      `create index "webhook_deliveries_lease_expiry_index" on "webhook_deliveries" ("in_flight_until") where "lease_token" is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "webhook_deliveries_lease_expiry_index";`);
    this.addSql(`drop index if exists "webhook_deliveries_webhook_leased_index";`);
    this.addSql(`drop index if exists "webhook_deliveries_webhook_due_index";`);
    this.addSql(
      `alter table "webhooks" drop column "concurrency", drop column "rate_limit", drop column "rate_tokens", drop column "rate_checked_at", drop column "paused_until";`,
    );
    this.addSql(`alter table "webhook_deliveries" drop column "lease_token";`);
    this.addSql(`drop sequence if exists "webhook_lease_seq";`);
  }
}
