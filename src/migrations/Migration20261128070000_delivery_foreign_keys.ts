import { Migration } from '@mikro-orm/migrations';

/**
 * The delivery tables without foreign keys (docs/adr/0074-delivery-tables-without-foreign-keys.md).
 * Checking a delivery's webhook locked the webhook row for every delivery
 * written (a WAL record, and a MultiXact when writes overlap), and checking an
 * attempt's delivery did the same for every claim. The cascades stay, as
 * triggers, whoever deletes: a webhook takes its deliveries, a delivery its
 * attempts. That no delivery is written for a webhook being deleted is kept
 * by a lock of its company's id (7205: LOCKS.webhookWriters in db/locks.ts): the outbox holds it
 * shared from reading the company's webhooks to its commit, and a deletion
 * takes it alone before the row goes, so it waits for the writes that read them.
 */
export class Migration20261128070000_delivery_foreign_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "webhook_attempts" drop constraint "webhook_attempts_delivery_id_foreign";');
    this.addSql('alter table "webhook_deliveries" drop constraint "webhook_deliveries_webhook_id_foreign";');
    this.addSql(`create function "webhook_deleting"() returns trigger language plpgsql as $$
begin
  perform pg_advisory_xact_lock(7205, old.company_id);
  return old;
end $$;`);
    this.addSql(`create function "webhooks_deleted"() returns trigger language plpgsql as $$
begin
  delete from webhook_deliveries where webhook_id in (select id from gone);
  return null;
end $$;`);
    this.addSql(`create function "webhook_deliveries_deleted"() returns trigger language plpgsql as $$
begin
  delete from webhook_attempts where delivery_id in (select id from gone);
  return null;
end $$;`);
    this.addSql(
      'create trigger "webhook_deleting" before delete on "webhooks" for each row execute function "webhook_deleting"();',
    );
    this.addSql(
      'create trigger "webhooks_deleted" after delete on "webhooks" referencing old table as gone for each statement execute function "webhooks_deleted"();',
    );
    this.addSql(
      'create trigger "webhook_deliveries_deleted" after delete on "webhook_deliveries" referencing old table as gone for each statement execute function "webhook_deliveries_deleted"();',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger "webhook_deliveries_deleted" on "webhook_deliveries";');
    this.addSql('drop trigger "webhooks_deleted" on "webhooks";');
    this.addSql('drop trigger "webhook_deleting" on "webhooks";');
    this.addSql('drop function "webhook_deliveries_deleted"(), "webhooks_deleted"(), "webhook_deleting"();');
    this.addSql(
      'delete from "webhook_deliveries" d where not exists (select 1 from "webhooks" w where w.id = d.webhook_id);',
    );
    this.addSql(
      'delete from "webhook_attempts" a where not exists (select 1 from "webhook_deliveries" d where d.id = a.delivery_id);',
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_webhook_id_foreign" foreign key ("webhook_id") references "webhooks" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_foreign" foreign key ("delivery_id") references "webhook_deliveries" ("id") on update cascade on delete cascade;`,
    );
  }
}
