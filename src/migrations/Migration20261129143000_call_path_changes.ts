import { Migration } from '@mikro-orm/migrations';

/**
 * Every change to what the call path keeps in memory (db/config-cache.ts) is announced on the `call_path_changes`
 * channel, whoever makes it: a company's or a decision endpoint's change names the company; a provider account's or
 * a phone number's names every company ('all'), since either can move a callback from one company to another.
 */
export class Migration20261129143000_call_path_changes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function "call_path_changed"() returns trigger language plpgsql as $$
declare
  changed record;
begin
  if tg_op = 'DELETE' then changed := old; else changed := new; end if;
  if tg_table_name = 'companies' then
    perform pg_notify('call_path_changes', changed.id::text);
  elsif tg_table_name = 'decision_endpoints' then
    perform pg_notify('call_path_changes', changed.company_id::text);
    if tg_op = 'UPDATE' and old.company_id <> new.company_id then
      perform pg_notify('call_path_changes', old.company_id::text);
    end if;
  else
    perform pg_notify('call_path_changes', 'all');
  end if;
  return null;
end $$;`);
    this.addSql(
      `create trigger "decision_endpoints_call_path_changed" after insert or update or delete on "decision_endpoints" for each row execute function "call_path_changed"();`,
    );
    this.addSql(
      `create trigger "companies_call_path_changed" after update of "name", "time_zone", "is_agency", "parent_id" or delete on "companies" for each row execute function "call_path_changed"();`,
    );
    this.addSql(
      `create trigger "telco_accounts_call_path_changed" after insert or update of "account_sid", "auth_token_sealed", "company_id" or delete on "telco_accounts" for each row execute function "call_path_changed"();`,
    );
    this.addSql(
      `create trigger "phone_numbers_call_path_changed" after insert or update of "phone_no", "company_id" or delete on "phone_numbers" for each row execute function "call_path_changed"();`,
    );
  }

  override async down(): Promise<void> {
    for (const table of ['companies', 'decision_endpoints', 'telco_accounts', 'phone_numbers'])
      this.addSql(`drop trigger if exists "${table}_call_path_changed" on "${table}";`);
    this.addSql(`drop function if exists "call_path_changed"();`);
  }
}
