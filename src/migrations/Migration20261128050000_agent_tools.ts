import { Migration } from '@mikro-orm/migrations';

/**
 * Tools for AI agents (docs/adr/0069-tools-for-ai-agents.md): each a name,
 * a description, the JSON Schema of its arguments, the company's endpoint
 * that runs it, a deadline and a fallback message.
 */
export class Migration20261128050000_agent_tools extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "agent_tools" (
      "id" serial primary key,
      "company_id" int not null references "companies" ("id") on delete cascade,
      "agent_id" int not null references "agents" ("id") on delete cascade,
      "name" varchar(64) not null,
      "description" text not null,
      "parameters" jsonb not null,
      "url" text not null,
      "secret_sealed" text not null,
      "deadline_ms" int not null default 3000,
      "fallback_message" text not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "agent_tools_agent_name_unique" unique ("agent_id", "name"));`);
    this.addSql(`create index "agent_tools_company_id_index" on "agent_tools" ("company_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table "agent_tools";`);
  }
}
