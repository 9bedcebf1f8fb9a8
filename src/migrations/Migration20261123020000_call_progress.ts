import { Migration } from '@mikro-orm/migrations';

/** Calls followed from the provider's status callbacks: when answered, where transferred. */
export class Migration20261123020000_call_progress extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "calls" add column "answered_at" timestamptz null, add column "ended_at" timestamptz null, add column "transferred_to" varchar(32) null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "calls" drop column "answered_at", drop column "ended_at", drop column "transferred_to";`);
  }
}
