import { Migration } from '@mikro-orm/migrations';

/**
 * The rest of what an inbound call's decision and an agent's tool call read, announced on `call_path_changes` like
 * the call path's configuration (db/config-cache.ts, db/contact-directory.ts): a company's agents and their tools (a
 * change names the company), a number's own agent (its company), and its contacts. A statement that changes a few
 * contacts names each (`c<company>:<number>`); one that changes more names their companies (`C<company>`); a
 * TRUNCATE names everything.
 */
export class Migration20261202140000_call_path_facts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function "call_path_changed"() returns trigger language plpgsql as $$
declare
  changed record;
begin
  if tg_op = 'DELETE' then changed := old; else changed := new; end if;
  if tg_table_name = 'companies' then
    perform pg_notify('call_path_changes', changed.id::text);
  elsif tg_table_name in ('decision_endpoints', 'agents', 'agent_tools') then
    perform pg_notify('call_path_changes', changed.company_id::text);
    if tg_op = 'UPDATE' and old.company_id <> new.company_id then
      perform pg_notify('call_path_changes', old.company_id::text);
    end if;
  elsif tg_table_name = 'phone_numbers' and tg_op = 'UPDATE' then
    -- Record fields are read only where the table has them (plpgsql resolves each condition whole).
    if old.phone_no = new.phone_no and old.company_id = new.company_id then
      perform pg_notify('call_path_changes', changed.company_id::text);
    else
      perform pg_notify('call_path_changes', 'all');
    end if;
  else
    perform pg_notify('call_path_changes', 'all');
  end if;
  return null;
end $$;`);
    this.addSql(
      `create trigger "agents_call_path_changed" after insert or update of "company_id" or delete on "agents" for each row execute function "call_path_changed"();`,
    );
    this.addSql(
      `create trigger "agent_tools_call_path_changed" after insert or update or delete on "agent_tools" for each row execute function "call_path_changed"();`,
    );
    this.addSql(`drop trigger "phone_numbers_call_path_changed" on "phone_numbers";`);
    this.addSql(
      `create trigger "phone_numbers_call_path_changed" after insert or update of "phone_no", "company_id", "chatbot_agent_id" or delete on "phone_numbers" for each row execute function "call_path_changed"();`,
    );
    this.addSql(`create function "contacts_call_path_changed"() returns trigger language plpgsql as $$
declare
  r record;
begin
  if (select count(*) from (select 1 from changed limit 33) few) > 32 then
    for r in select distinct company_id from changed loop
      perform pg_notify('call_path_changes', 'C' || r.company_id);
    end loop;
  else
    for r in select company_id, phone_number from changed loop
      perform pg_notify('call_path_changes', 'c' || r.company_id || ':' || r.phone_number);
    end loop;
  end if;
  return null;
end $$;`);
    this.addSql(
      `create trigger "contacts_inserted_call_path" after insert on "contacts" referencing new table as "changed" for each statement execute function "contacts_call_path_changed"();`,
    );
    this.addSql(
      `create trigger "contacts_updated_call_path" after update on "contacts" referencing old table as "changed" for each statement execute function "contacts_call_path_changed"();`,
    );
    this.addSql(
      `create trigger "contacts_updated_to_call_path" after update on "contacts" referencing new table as "changed" for each statement execute function "contacts_call_path_changed"();`,
    );
    this.addSql(
      `create trigger "contacts_deleted_call_path" after delete on "contacts" referencing old table as "changed" for each statement execute function "contacts_call_path_changed"();`,
    );
    this.addSql(`create function "contacts_truncated_call_path"() returns trigger language plpgsql as $$
begin
  perform pg_notify('call_path_changes', 'all');
  return null;
end $$;`);
    this.addSql(
      `create trigger "contacts_truncated_call_path" after truncate on "contacts" for each statement execute function "contacts_truncated_call_path"();`,
    );
  }

  override async down(): Promise<void> {
    for (const name of ['inserted', 'updated', 'updated_to', 'deleted', 'truncated'])
      this.addSql(`drop trigger if exists "contacts_${name}_call_path" on "contacts";`);
    this.addSql(`drop function if exists "contacts_call_path_changed"();`);
    this.addSql(`drop function if exists "contacts_truncated_call_path"();`);
    this.addSql(`drop trigger if exists "agents_call_path_changed" on "agents";`);
    this.addSql(`drop trigger if exists "agent_tools_call_path_changed" on "agent_tools";`);
    this.addSql(`drop trigger "phone_numbers_call_path_changed" on "phone_numbers";`);
    this.addSql(
      `create trigger "phone_numbers_call_path_changed" after insert or update of "phone_no", "company_id" or delete on "phone_numbers" for each row execute function "call_path_changed"();`,
    );
  }
}
