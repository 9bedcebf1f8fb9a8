import { Migration } from '@mikro-orm/migrations';

/**
 * `npm run listen`: a session webhook (a webhooks row whose url is
 * `listen:<the URL forwarded to>`) lives while an API process holds its
 * session and says so (`alive_until`); each attempt of it is an exchange
 * (the signed request, then the local answer the command reports). Both go
 * with the webhook.
 */
export class Migration20261126180000_listen_sessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "listen_sessions" ("webhook_id" int not null, "company_id" int not null, "alive_until" timestamptz not null, constraint "listen_sessions_pkey" primary key ("webhook_id"));`,
    );
    this.addSql(
      `alter table "listen_sessions" add constraint "listen_sessions_webhook_id_foreign" foreign key ("webhook_id") references "webhooks" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `create table "listen_exchanges" ("key" varchar(64) not null, "webhook_id" int not null, "company_id" int not null, "request" jsonb not null, "status" int null, "error" varchar(255) null, "response_body" varchar(1024) null, "answered_at" timestamptz null, "created_at" timestamptz not null default now(), constraint "listen_exchanges_pkey" primary key ("key"));`,
    );
    this.addSql(
      `alter table "listen_exchanges" add constraint "listen_exchanges_webhook_id_foreign" foreign key ("webhook_id") references "webhooks" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`create index "listen_exchanges_webhook_id_index" on "listen_exchanges" ("webhook_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "listen_exchanges";`);
    this.addSql(`drop table if exists "listen_sessions";`);
  }
}
