import { Migration } from '@mikro-orm/migrations';

/**
 * Spent purchase tokens are the number_purchases rows (keyed by the token's
 * jti) and an import is refused once its number is imported: nothing wrote
 * or read consumed_tokens any more.
 */
export class Migration20261125120000_drop_consumed_tokens extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop table if exists "consumed_tokens";`);
  }

  override async down(): Promise<void> {
    this.addSql(
      `create table "consumed_tokens" ("jti" varchar(64) not null, "consumed_at" timestamptz not null, constraint "consumed_tokens_pkey" primary key ("jti"));`,
    );
  }
}
