import { Migration } from '@mikro-orm/migrations';

/**
 * Sign-ins and provider account changes are limited on the API's shared budgets (api_budgets): the table of their
 * own fixed-window counters goes.
 */
export class Migration20261127120000_one_limiter extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop table if exists "login_attempts";`);
  }

  override async down(): Promise<void> {
    this.addSql(
      `create table "login_attempts" ("key" varchar(320) not null, "window_start" timestamptz not null, "count" int not null, constraint "login_attempts_pkey" primary key ("key"));`,
    );
  }
}
