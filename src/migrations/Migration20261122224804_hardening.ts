import { Migration } from '@mikro-orm/migrations';

export class Migration20261122224804_hardening extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "number_purchases" ("jti" varchar(64) not null, "company_id" int not null, "phone_no" varchar(20) not null, "status" varchar(16) not null, "provider_sid" varchar(64) null, "friendly_name" varchar(255) null, "phone_type" varchar(32) null, "account_balance" varchar(32) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "number_purchases_pkey" primary key ("jti"));`,
    );
    this.addSql(
      `create index "number_purchases_status_updated_at_index" on "number_purchases" ("status", "updated_at");`,
    );

    this.addSql(`drop index "pipeline_stages_pipeline_id_position_index";`);

    // Races before this constraint could leave duplicates: number each pipeline's stages 1..n in their order first.
    this.addSql(
      `update "pipeline_stages" s set "position" = r.n from (select "id", row_number() over (partition by "pipeline_id" order by "position", "id") as n from "pipeline_stages") r where s."id" = r."id" and s."position" <> r.n;`,
    );
    this.addSql(
      `alter table "pipeline_stages" add constraint "pipeline_stages_pipeline_id_position_unique" unique ("pipeline_id", "position") deferrable initially deferred;`,
    );

    this.addSql(`drop index "workflow_folders_company_id_sort_order_index";`);

    this.addSql(
      `update "workflow_folders" f set "sort_order" = r.n from (select "id", row_number() over (partition by "company_id" order by "sort_order", "id") as n from "workflow_folders") r where f."id" = r."id" and f."sort_order" <> r.n;`,
    );
    this.addSql(
      `alter table "workflow_folders" add constraint "workflow_folders_company_id_sort_order_unique" unique ("company_id", "sort_order") deferrable initially deferred;`,
    );

    // The spec's flag-settings and local-presence routes state no permission; these two were never enforced.
    this.addSql(`delete from "permissions" where "slug" in ('edit-spam-settings', 'edit-ai-dashboard-settings');`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "number_purchases" cascade;`);

    this.addSql(`alter table "pipeline_stages" drop constraint "pipeline_stages_pipeline_id_position_unique";`);

    this.addSql(
      `CREATE INDEX pipeline_stages_pipeline_id_position_index ON public.pipeline_stages USING btree (pipeline_id, "position");`,
    );

    this.addSql(`alter table "workflow_folders" drop constraint "workflow_folders_company_id_sort_order_unique";`);

    this.addSql(
      `create index "workflow_folders_company_id_sort_order_index" on "workflow_folders" ("company_id", "sort_order");`,
    );
  }
}
