import { Migration } from '@mikro-orm/migrations';

/**
 * Hand-written (MikroORM has no table options): the record tables are rows updated in place many times a minute (the
 * settle statements add each batch to its webhook's minute and quarter hour; the call path adds every few seconds),
 * so half of each page is left free for those updates to stay on their page and skip the indexes (HOT updates), as
 * the counters' table does (entities/webhook-stat.entity.ts, entities/call-path-stat.entity.ts).
 */
export class Migration20261129080000_stats_fillfactor extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "webhook_stats" set (fillfactor = 50);');
    this.addSql('alter table "call_path_stats" set (fillfactor = 50);');
  }

  override async down(): Promise<void> {
    this.addSql('alter table "webhook_stats" reset (fillfactor);');
    this.addSql('alter table "call_path_stats" reset (fillfactor);');
  }
}
