import { Migration } from '@mikro-orm/migrations';

/**
 * The API's budgets (src/limits/): the points each token and each company has
 * spent in the current window, shared by every API process. Unlogged: a
 * counter lost in a crash costs at most one window's count, and no write of
 * it waits for the WAL. Its columns are the ones rate-limiter-flexible's
 * PostgreSQL store reads and writes. A company may have budgets of its own.
 */
export class Migration20261126170000_api_limits extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create unlogged table "api_budgets" ("key" varchar(255) not null, "points" int not null default 0, "expire" bigint null, constraint "api_budgets_pkey" primary key ("key"));`,
    );
    this.addSql(
      `alter table "companies" add column "api_limit_per_token" int null, add column "api_limit_per_company" int null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "api_budgets";`);
    this.addSql(`alter table "companies" drop column "api_limit_per_token", drop column "api_limit_per_company";`);
  }
}
