import { Migration } from '@mikro-orm/migrations';

/**
 * Destinations beyond HTTP (docs/adr/0065-broker-destinations.md): a broker
 * URL's credentials are kept sealed, the URL shown and stored with ***.
 */
export class Migration20261128020000_broker_urls extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "webhooks" add column "url_sealed" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhooks" drop column "url_sealed";`);
  }
}
