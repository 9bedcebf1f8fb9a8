import { Migration } from '@mikro-orm/migrations';

/**
 * A new agent is announced on `call_path_changes` by the statement that makes it (agentRepository.create), after the
 * commit, no longer by a trigger inside the transaction (docs/adr/0098-notifies-off-the-answer.md): a NOTIFY inside a
 * write holds PostgreSQL's notification lock until the commit is on disk, so every write that made an agent waited
 * for the flush of the one before it. A change of an agent's company and a deletion are rare, and still announced
 * by the trigger, whoever makes them.
 */
export class Migration20261202170000_agent_inserts_announced extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop trigger "agents_call_path_changed" on "agents";`);
    this.addSql(
      `create trigger "agents_call_path_changed" after update of "company_id" or delete on "agents" for each row execute function "call_path_changed"();`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger "agents_call_path_changed" on "agents";`);
    this.addSql(
      `create trigger "agents_call_path_changed" after insert or update of "company_id" or delete on "agents" for each row execute function "call_path_changed"();`,
    );
  }
}
