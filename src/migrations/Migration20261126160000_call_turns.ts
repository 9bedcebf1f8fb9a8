import { Migration } from '@mikro-orm/migrations';

/** A call's live transcript, turn by turn as the provider reports it (one row per call and turn number). */
export class Migration20261126160000_call_turns extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "call_turns" ("call_id" int not null, "sequence" int not null, "speaker" varchar(16) not null, "text" text not null, "created_at" timestamptz not null, constraint "call_turns_pkey" primary key ("call_id", "sequence"));`,
    );
    this.addSql(
      `alter table "call_turns" add constraint "call_turns_call_id_foreign" foreign key ("call_id") references "calls" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "call_turns" cascade;`);
  }
}
