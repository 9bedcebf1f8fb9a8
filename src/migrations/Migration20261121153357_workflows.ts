import { Migration } from '@mikro-orm/migrations';

export class Migration20261121153357_workflows extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create sequence "workflow_builder_id_seq" start with 1001;`);
    this.addSql(
      `create table "pipelines" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "name" varchar(255) not null, "crm_location_id" varchar(255) null);`,
    );
    this.addSql(`create index "pipelines_company_id_name_index" on "pipelines" ("company_id", "name");`);

    this.addSql(
      `create table "pipeline_stages" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "pipeline_id" int not null, "name" varchar(255) not null, "position" int not null);`,
    );
    this.addSql(
      `create index "pipeline_stages_pipeline_id_position_index" on "pipeline_stages" ("pipeline_id", "position");`,
    );

    this.addSql(
      `create table "workflow_folders" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "name" varchar(255) not null, "sort_order" int not null);`,
    );
    this.addSql(
      `create index "workflow_folders_company_id_sort_order_index" on "workflow_folders" ("company_id", "sort_order");`,
    );

    this.addSql(
      `create table "workflows" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "builder_id" int not null default nextval('workflow_builder_id_seq'), "company_id" int not null, "folder_id" int null, "name" varchar(255) not null, "description" text null, "status" text check ("status" in ('active', 'inactive', 'draft')) not null default 'draft', "trigger_config" jsonb null);`,
    );
    this.addSql(`alter table "workflows" add constraint "workflows_builder_id_unique" unique ("builder_id");`);
    this.addSql(`create index "workflows_folder_id_index" on "workflows" ("folder_id");`);
    this.addSql(`create index "workflows_company_id_created_at_index" on "workflows" ("company_id", "created_at");`);

    this.addSql(
      `alter table "pipelines" add constraint "pipelines_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "pipeline_stages" add constraint "pipeline_stages_pipeline_id_foreign" foreign key ("pipeline_id") references "pipelines" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "workflow_folders" add constraint "workflow_folders_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "workflows" add constraint "workflows_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "workflows" add constraint "workflows_folder_id_foreign" foreign key ("folder_id") references "workflow_folders" ("id") on update cascade on delete set null;`,
    );

    this.addSql(`create index "workflows_name_trgm_index" on "workflows" using gin ("name" gin_trgm_ops);`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "pipeline_stages" drop constraint "pipeline_stages_pipeline_id_foreign";`);

    this.addSql(`alter table "workflows" drop constraint "workflows_folder_id_foreign";`);

    this.addSql(`drop table if exists "pipelines" cascade;`);

    this.addSql(`drop table if exists "pipeline_stages" cascade;`);

    this.addSql(`drop table if exists "workflow_folders" cascade;`);

    this.addSql(`drop table if exists "workflows" cascade;`);
    this.addSql(`drop sequence if exists "workflow_builder_id_seq";`);
  }
}
