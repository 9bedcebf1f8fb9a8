import { Migration } from '@mikro-orm/migrations';

/**
 * Every long list in its own order, so a page at any depth is found from an
 * index alone: booked calls by start then id (also per agent); phone numbers,
 * spam-protected numbers and workflows by creation then id (also per use,
 * status and folder, their lists' filters).
 */
const LISTS = [
  ['phone_numbers', 'use_for'],
  ['spam_protected_numbers', 'status'],
  ['workflows', 'folder_id'],
] as const;

export class Migration20261123101500_list_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index if exists "calls_company_id_started_at_appointments_index";`);
    this.addSql(
      `create index "calls_company_id_started_at_appointments_index" on "calls" ("company_id", "started_at" desc, "id" desc) where "appointment_at" is not null;`,
    );
    this.addSql(
      `create index "calls_company_id_agent_id_started_at_appointments_index" on "calls" ("company_id", "agent_id", "started_at" desc, "id" desc) where "appointment_at" is not null;`,
    );
    for (const [table, filter] of LISTS) {
      this.addSql(`drop index if exists "${table}_company_id_created_at_index";`);
      this.addSql(
        `create index "${table}_company_id_created_at_id_index" on "${table}" ("company_id", "created_at", "id");`,
      );
      this.addSql(
        `create index "${table}_company_id_${filter}_created_at_id_index" on "${table}" ("company_id", "${filter}", "created_at", "id");`,
      );
    }
  }

  override async down(): Promise<void> {
    for (const [table, filter] of LISTS) {
      this.addSql(`drop index if exists "${table}_company_id_${filter}_created_at_id_index";`);
      this.addSql(`drop index if exists "${table}_company_id_created_at_id_index";`);
      this.addSql(`create index "${table}_company_id_created_at_index" on "${table}" ("company_id", "created_at");`);
    }
    this.addSql(`drop index if exists "calls_company_id_agent_id_started_at_appointments_index";`);
    this.addSql(`drop index if exists "calls_company_id_started_at_appointments_index";`);
    this.addSql(
      `create index "calls_company_id_started_at_appointments_index" on "calls" ("company_id", "started_at") where "appointment_at" is not null;`,
    );
  }
}
