import { Migration } from '@mikro-orm/migrations';

/**
 * Tracing across the webhook hop: a delivery row keeps the W3C traceparent of
 * the request whose change caused it (null when tracing is off), so its
 * attempts join that trace.
 */
export class Migration20261126190000_delivery_trace extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "webhook_deliveries" add column "trace_parent" varchar(55) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop column "trace_parent";`);
  }
}
