import { Migration } from '@mikro-orm/migrations';

/**
 * A webhook's deletion takes its deliveries before the webhook's counters, the order the delivery engine's settle
 * takes them in (it holds a delivery, then gives back its endpoint's slot on the counters' row). The deliveries went
 * after the row, by a trigger of the statement, so a deletion holding the counters' row (gone with the webhook, by
 * its foreign key) waited for a delivery that a settle held while it waited for that row: PostgreSQL ended the
 * deletion as a deadlock. They now go in the row's trigger before it goes, after the company's writers' lock
 * (docs/adr/0074-delivery-tables-without-foreign-keys.md), locked in the order of their ids.
 */
export class Migration20261204020000_webhook_deletion_order extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function "webhook_deleting"() returns trigger language plpgsql as $$
begin
  perform pg_advisory_xact_lock(7205, old.company_id);
  delete from webhook_deliveries where id in (
    select id from webhook_deliveries where webhook_id = old.id order by id for update);
  return old;
end $$;`);
    this.addSql('drop trigger "webhooks_deleted" on "webhooks";');
    this.addSql('drop function "webhooks_deleted"();');
  }

  override async down(): Promise<void> {
    this.addSql(`create function "webhooks_deleted"() returns trigger language plpgsql as $$
begin
  delete from webhook_deliveries where webhook_id in (select id from gone);
  return null;
end $$;`);
    this.addSql(
      'create trigger "webhooks_deleted" after delete on "webhooks" referencing old table as gone for each statement execute function "webhooks_deleted"();',
    );
    this.addSql(`create or replace function "webhook_deleting"() returns trigger language plpgsql as $$
begin
  perform pg_advisory_xact_lock(7205, old.company_id);
  return old;
end $$;`);
  }
}
