import { Migration } from '@mikro-orm/migrations';

/**
 * Why a fallback decided, as a code of its own (docs/adr/0076-codes-beside-words.md): the
 * calls decided before it keep their reason's code here and its words in
 * decision_reason ("timeout: no answer within 296 ms" becomes timeout and
 * "no answer within 296 ms").
 */
export class Migration20261129010000_decision_fallback_reason extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "calls" add column "decision_fallback_reason" text null
      check ("decision_fallback_reason" in ('timeout', 'error', 'invalid', 'unreachable', 'breaker_open'));`);
    this.addSql(`update "calls" set "decision_fallback_reason" = split_part("decision_reason", ': ', 1),
        "decision_reason" = substr("decision_reason", length(split_part("decision_reason", ': ', 1)) + 3)
      where "decided_by" = 'fallback'
        and split_part("decision_reason", ': ', 1) in ('timeout', 'error', 'invalid', 'unreachable', 'breaker_open');`);
  }

  override async down(): Promise<void> {
    this.addSql(`update "calls" set "decision_reason" = "decision_fallback_reason" || ': ' || coalesce("decision_reason", '')
      where "decision_fallback_reason" is not null;`);
    this.addSql('alter table "calls" drop column "decision_fallback_reason";');
  }
}
