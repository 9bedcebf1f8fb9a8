import { Migration } from '@mikro-orm/migrations';

/**
 * Generated from the entities (npm run migration:create): the dialer's campaign settings, a lead's attempts and its
 * next one, each call placed to a lead (entities/lead-attempt.entity.ts), and who answered a call.
 */
export class Migration20261129104249_campaign_dialing extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "lead_attempts" ("id" serial primary key, "created_at" timestamptz not null, "updated_at" timestamptz not null, "company_id" int not null, "lead_id" int not null, "campaign_id" int not null, "attempt" smallint not null, "state" varchar(16) not null, "call_sid" varchar(64) null, "outcome" varchar(16) null, "error" varchar(255) null, "dialed_at" timestamptz not null, "ended_at" timestamptz null, "lease_until" timestamptz not null);`,
    );
    this.addSql(`alter table "lead_attempts" add constraint "lead_attempts_call_sid_unique" unique ("call_sid");`);
    this.addSql(`create index "lead_attempts_state_lease_until_index" on "lead_attempts" ("state", "lease_until");`);
    this.addSql(`create index "lead_attempts_campaign_id_state_index" on "lead_attempts" ("campaign_id", "state");`);
    this.addSql(
      `alter table "lead_attempts" add constraint "lead_attempts_lead_id_attempt_unique" unique ("lead_id", "attempt");`,
    );

    this.addSql(
      `alter table "lead_attempts" add constraint "lead_attempts_company_id_foreign" foreign key ("company_id") references "companies" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "lead_attempts" add constraint "lead_attempts_lead_id_foreign" foreign key ("lead_id") references "leads" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "lead_attempts" add constraint "lead_attempts_campaign_id_foreign" foreign key ("campaign_id") references "campaigns" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "campaigns" add column "concurrency" smallint not null default 10, add column "from_number" varchar(20) null, add column "hours_start" smallint not null default 480, add column "hours_end" smallint not null default 1260, add column "calling_days" jsonb not null default '[1,2,3,4,5,6,7]', add column "ring_seconds" smallint not null default 25, add column "max_attempts" smallint not null default 3, add column "retry_minutes" jsonb not null default '[30,60,120]', add column "retry_on" jsonb not null default '["no_answer","busy"]';`,
    );

    this.addSql(`alter table "calls" add column "answered_by" varchar(32) null;`);

    this.addSql(
      `alter table "leads" add column "attempts" smallint not null default 0, add column "next_attempt_at" timestamptz null, add column "last_outcome" varchar(16) null;`,
    );
    this.addSql(
      `create index "leads_campaign_id_state_next_attempt_at_index" on "leads" ("campaign_id", "state", "next_attempt_at");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "lead_attempts" cascade;`);
    this.addSql(`update "leads" set "next_attempt_at" = "created_at" where "state" = 'pending';`);

    this.addSql(`alter table "calls" drop column "answered_by";`);

    this.addSql(
      `alter table "campaigns" drop column "concurrency", drop column "from_number", drop column "hours_start", drop column "hours_end", drop column "calling_days", drop column "ring_seconds", drop column "max_attempts", drop column "retry_minutes", drop column "retry_on";`,
    );

    this.addSql(`drop index "leads_campaign_id_state_next_attempt_at_index";`);
    this.addSql(
      `alter table "leads" drop column "attempts", drop column "next_attempt_at", drop column "last_outcome";`,
    );
  }
}
