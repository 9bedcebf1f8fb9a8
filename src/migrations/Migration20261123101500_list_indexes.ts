import { Migration } from '@mikro-orm/migrations';

/**
 * Booked calls in the list's own order (start, then id, newest first), so a
 * page at any depth is found from the index alone; the same per agent.
 */
export class Migration20261123101500_list_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index if exists "calls_company_id_started_at_appointments_index";`);
    this.addSql(`create index "calls_company_id_started_at_appointments_index" on "calls" ("company_id", "started_at" desc, "id" desc) where "appointment_at" is not null;`);
    this.addSql(`create index "calls_company_id_agent_id_started_at_appointments_index" on "calls" ("company_id", "agent_id", "started_at" desc, "id" desc) where "appointment_at" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "calls_company_id_agent_id_started_at_appointments_index";`);
    this.addSql(`drop index if exists "calls_company_id_started_at_appointments_index";`);
    this.addSql(`create index "calls_company_id_started_at_appointments_index" on "calls" ("company_id", "started_at") where "appointment_at" is not null;`);
  }
}
