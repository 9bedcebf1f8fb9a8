import { Migration } from '@mikro-orm/migrations';

/**
 * Endpoint credentials beside the signature (docs/adr/0070-endpoint-credentials.md):
 * OAuth2 client credentials and client TLS, sealed, for webhooks, decision
 * endpoints and tools alike.
 */
export class Migration20261128060000_endpoint_credentials extends Migration {
  override async up(): Promise<void> {
    for (const table of ['webhooks', 'decision_endpoints', 'agent_tools'])
      this.addSql(`alter table "${table}" add column "credentials_sealed" text null;`);
  }

  override async down(): Promise<void> {
    for (const table of ['webhooks', 'decision_endpoints', 'agent_tools'])
      this.addSql(`alter table "${table}" drop column "credentials_sealed";`);
  }
}
