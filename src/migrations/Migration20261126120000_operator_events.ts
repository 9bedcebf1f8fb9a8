import { Migration } from '@mikro-orm/migrations';

/**
 * Operator events: how far a failing webhook has been announced (0, then 50
 * and 90: the share of WEBHOOK_DISABLE_AFTER passed when webhook.failing was
 * recorded), so each notice goes out once and a recovery is announced only
 * after a failing one.
 */
export class Migration20261126120000_operator_events extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "webhooks" add column "failing_notified" smallint not null default 0;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhooks" drop column "failing_notified";`);
  }
}
