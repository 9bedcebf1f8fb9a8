import { Migration } from '@mikro-orm/migrations';

/**
 * Every change that can alter a signed-in viewer is announced on the
 * `viewer_changes` channel, whoever makes it (a service, a migration, an
 * operator's SQL), so each process's viewer cache forgets what it concerns.
 */
export class Migration20261123100000_viewer_changes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function "viewer_changed"() returns trigger language plpgsql as $$
declare
  gone record;
begin
  if tg_op = 'DELETE' then gone := old; else gone := new; end if;
  if tg_table_name = 'revoked_tokens' then
    perform pg_notify('viewer_changes', 'jti:' || gone.jti);
  elsif tg_table_name = 'users' then
    perform pg_notify('viewer_changes', 'user:' || gone.id);
  elsif tg_table_name = 'roles' then
    perform pg_notify('viewer_changes', 'role:' || gone.id);
  elsif tg_table_name = 'role_permissions' then
    perform pg_notify('viewer_changes', 'role:' || gone.role_id);
    if tg_op = 'UPDATE' then perform pg_notify('viewer_changes', 'role:' || old.role_id); end if;
  elsif tg_table_name = 'companies' then
    perform pg_notify('viewer_changes', 'company:' || gone.id);
  else
    perform pg_notify('viewer_changes', 'all');
  end if;
  return null;
end $$;`);
    this.addSql(
      `create trigger "revoked_tokens_viewer_changed" after insert on "revoked_tokens" for each row execute function "viewer_changed"();`,
    );
    this.addSql(
      `create trigger "users_viewer_changed" after update of "name", "email", "company_id", "role_id" or delete on "users" for each row execute function "viewer_changed"();`,
    );
    this.addSql(
      `create trigger "roles_viewer_changed" after update of "title", "is_owner", "company_id" or delete on "roles" for each row execute function "viewer_changed"();`,
    );
    this.addSql(
      `create trigger "role_permissions_viewer_changed" after insert or update or delete on "role_permissions" for each row execute function "viewer_changed"();`,
    );
    this.addSql(
      `create trigger "companies_viewer_changed" after update of "name", "time_zone", "is_agency", "parent_id" or delete on "companies" for each row execute function "viewer_changed"();`,
    );
    this.addSql(
      `create trigger "permissions_viewer_changed" after insert or update or delete on "permissions" for each statement execute function "viewer_changed"();`,
    );
  }

  override async down(): Promise<void> {
    for (const table of ['revoked_tokens', 'users', 'roles', 'role_permissions', 'companies', 'permissions']) {
      this.addSql(`drop trigger if exists "${table}_viewer_changed" on "${table}";`);
    }
    this.addSql(`drop function if exists "viewer_changed"();`);
  }
}
