import { Migration } from '@mikro-orm/migrations';

/**
 * The events API (GET /api/events, docs/adr/0063-the-events-api.md): each
 * event keeps the id of the transaction that wrote it, and the feed reads a
 * company's events in that order, only below the oldest transaction still
 * running, so a page never passes an event that commits later.
 */
export class Migration20261128000000_event_feed extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "events" add column "tx" xid8 not null default pg_current_xact_id();`);
    this.addSql(`create index "events_company_tx_index" on "events" ("company_id", "tx", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "events_company_tx_index";`);
    this.addSql(`alter table "events" drop column "tx";`);
  }
}
