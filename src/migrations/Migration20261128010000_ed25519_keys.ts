import { Migration } from '@mikro-orm/migrations';

/**
 * Ed25519 signatures, when a webhook asks for them (docs/adr/0064-ed25519-signatures.md):
 * its signing key sealed like the secret, its public key in the clear (it is
 * public), and the previous pair while a rotation is in grace.
 */
export class Migration20261128010000_ed25519_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "webhooks" add column "signing_key_sealed" text null, add column "public_key" text null, ` +
        `add column "previous_signing_key_sealed" text null, add column "previous_public_key" text null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "webhooks" drop column "signing_key_sealed", drop column "public_key", ` +
        `drop column "previous_signing_key_sealed", drop column "previous_public_key";`,
    );
  }
}
