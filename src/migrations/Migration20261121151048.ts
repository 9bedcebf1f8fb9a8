import { Migration } from '@mikro-orm/migrations';

export class Migration20261121151048 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "companies" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(255) not null, "parent_id" int null, "is_agency" boolean not null default false, "time_zone" varchar(64) not null default 'UTC', "settings" jsonb not null default '{}');`,
    );
    this.addSql(`create index "companies_parent_id_index" on "companies" ("parent_id");`);

    this.addSql(
      `create table "login_attempts" ("key" varchar(320) not null, "window_start" timestamptz not null, "count" int not null, constraint "login_attempts_pkey" primary key ("key"));`,
    );

    this.addSql(
      `create table "modules" ("id" serial primary key, "slug" varchar(64) not null, "name" varchar(255) not null, "sort_order" int not null default 0);`,
    );
    this.addSql(`alter table "modules" add constraint "modules_slug_unique" unique ("slug");`);

    this.addSql(
      `create table "permissions" ("id" serial primary key, "slug" varchar(100) not null, "name" varchar(255) not null, "module_id" int not null);`,
    );
    this.addSql(`alter table "permissions" add constraint "permissions_slug_unique" unique ("slug");`);

    this.addSql(
      `create table "revoked_tokens" ("jti" varchar(64) not null, "expires_at" timestamptz not null, constraint "revoked_tokens_pkey" primary key ("jti"));`,
    );
    this.addSql(`create index "revoked_tokens_expires_at_index" on "revoked_tokens" ("expires_at");`);

    this.addSql(
      `create table "roles" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "title" varchar(255) not null, "is_owner" boolean not null default false);`,
    );
    this.addSql(`create index "roles_company_id_created_at_index" on "roles" ("company_id", "created_at");`);

    this.addSql(
      `create table "role_permissions" ("role_id" int not null, "permission_id" int not null, constraint "role_permissions_pkey" primary key ("role_id", "permission_id"));`,
    );

    this.addSql(
      `create table "users" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "role_id" int not null, "name" varchar(255) not null, "email" varchar(255) not null, "password_hash" varchar(255) not null);`,
    );
    this.addSql(`create index "users_role_id_index" on "users" ("role_id");`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(
      `alter table "companies" add constraint "companies_parent_id_foreign" foreign key ("parent_id") references "companies" ("id") on update cascade on delete restrict;`,
    );

    this.addSql(
      `alter table "permissions" add constraint "permissions_module_id_foreign" foreign key ("module_id") references "modules" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "roles" add constraint "roles_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "role_permissions" add constraint "role_permissions_role_id_foreign" foreign key ("role_id") references "roles" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "role_permissions" add constraint "role_permissions_permission_id_foreign" foreign key ("permission_id") references "permissions" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "users" add constraint "users_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "users" add constraint "users_role_id_foreign" foreign key ("role_id") references "roles" ("id") on update cascade on delete restrict;`,
    );

    // Role titles are unique within a company, whatever their case; searches are index-backed.
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create unique index "roles_company_id_lower_title_unique" on "roles" ("company_id", lower("title"));`);
    this.addSql(`create index "roles_title_trgm_index" on "roles" using gin ("title" gin_trgm_ops);`);
  }
}
