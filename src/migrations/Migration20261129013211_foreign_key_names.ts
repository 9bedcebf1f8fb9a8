import { Migration } from '@mikro-orm/migrations';

/**
 * Generated from the entities (npm run migration:create): the foreign keys of
 * agent_tools and decision_endpoints take the names and the update rule every
 * other table's have (`<table>_<column>_foreign`, on update cascade), so the
 * entities say them without exceptions. Two small tables of configuration.
 */
export class Migration20261129013211_foreign_key_names extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "agent_tools" drop constraint "agent_tools_agent_id_fkey";`);
    this.addSql(`alter table "agent_tools" drop constraint "agent_tools_company_id_fkey";`);

    this.addSql(`alter table "decision_endpoints" drop constraint "decision_endpoints_company_id_fkey";`);
    this.addSql(`alter table "decision_endpoints" drop constraint "decision_endpoints_fallback_agent_id_fkey";`);
    this.addSql(`alter table "decision_endpoints" drop constraint "decision_endpoints_phone_number_id_fkey";`);

    this.addSql(
      `alter table "agent_tools" add constraint "agent_tools_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "agent_tools" add constraint "agent_tools_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "decision_endpoints" add constraint "decision_endpoints_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "decision_endpoints" add constraint "decision_endpoints_phone_number_id_foreign" foreign key ("phone_number_id") references "phone_numbers" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "decision_endpoints" add constraint "decision_endpoints_fallback_agent_id_foreign" foreign key ("fallback_agent_id") references "agents" ("id") on update cascade on delete set null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "agent_tools" drop constraint "agent_tools_company_id_foreign";`);
    this.addSql(`alter table "agent_tools" drop constraint "agent_tools_agent_id_foreign";`);

    this.addSql(`alter table "decision_endpoints" drop constraint "decision_endpoints_company_id_foreign";`);
    this.addSql(`alter table "decision_endpoints" drop constraint "decision_endpoints_phone_number_id_foreign";`);
    this.addSql(`alter table "decision_endpoints" drop constraint "decision_endpoints_fallback_agent_id_foreign";`);

    this.addSql(
      `alter table "agent_tools" add constraint "agent_tools_agent_id_fkey" foreign key ("agent_id") references "agents" ("id") on update no action on delete cascade;`,
    );
    this.addSql(
      `alter table "agent_tools" add constraint "agent_tools_company_id_fkey" foreign key ("company_id") references "companies" ("id") on update no action on delete cascade;`,
    );

    this.addSql(
      `alter table "decision_endpoints" add constraint "decision_endpoints_company_id_fkey" foreign key ("company_id") references "companies" ("id") on update no action on delete cascade;`,
    );
    this.addSql(
      `alter table "decision_endpoints" add constraint "decision_endpoints_fallback_agent_id_fkey" foreign key ("fallback_agent_id") references "agents" ("id") on update no action on delete set null;`,
    );
    this.addSql(
      `alter table "decision_endpoints" add constraint "decision_endpoints_phone_number_id_fkey" foreign key ("phone_number_id") references "phone_numbers" ("id") on update no action on delete cascade;`,
    );
  }
}
