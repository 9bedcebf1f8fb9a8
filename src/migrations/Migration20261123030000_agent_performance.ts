import { Migration } from '@mikro-orm/migrations';

/** Which side of each performance threshold an agent was last seen on (agent.performance fires on a crossing). */
export class Migration20261123030000_agent_performance extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "agents" add column "performance_state" jsonb not null default '{}';`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "agents" drop column "performance_state";`);
  }
}
