import { Migration } from '@mikro-orm/migrations';

/**
 * Generated from the entities (npm run migration:create): a campaign's lead has a key, variables, time zones and a
 * dialing state (entities/lead.entity.ts); the leads already in a campaign are pending.
 */
export class Migration20261129101854_campaign_lead_import extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "leads" add column "key" varchar(255) null, add column "variables" jsonb not null default '{}', add column "time_zone" varchar(64) null, add column "time_zones" jsonb not null default '[]', add column "state" varchar(16) null;`,
    );
    this.addSql(`alter table "leads" add constraint "leads_campaign_id_key_unique" unique ("campaign_id", "key");`);
    this.addSql(`update "leads" set "state" = 'pending' where "campaign_id" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "leads" drop constraint "leads_campaign_id_key_unique";`);
    this.addSql(
      `alter table "leads" drop column "key", drop column "variables", drop column "time_zone", drop column "time_zones", drop column "state";`,
    );
  }
}
