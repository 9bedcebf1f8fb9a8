import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Index, Property } from '@mikro-orm/core';

// A company's webhook: where and how its events are delivered, and the state the engine keeps of it. Secrets, keys,
// a URL holding credentials and the request's credentials are sealed (crypto/secret-box.ts). A trigger keeps deletes
// whole: webhook_deleting takes the company's lock, then deletes its deliveries before the row goes
// (Migration20261204020000_webhook_deletion_order; the delivery tables have no foreign key, to keep the engine's
// writes cheap). Its counters are WebhookCounter.

@Entity({ tableName: 'webhooks' })
@Index({ name: 'webhooks_company_id_created_at_index', properties: ['company', 'createdAt'] })
export class Webhook extends CompanyOwned {
  @Property({ type: 'string', length: 255 })
  title!: string;

  @Property({ type: 'string', length: 2048 })
  url!: string;

  @Property({ type: 'string', length: 8, default: 'POST' })
  method = 'POST';

  /** kernel/vocabulary.ts LIST_SELECTION_NAMES. */
  @Property({ type: 'string', length: 16, default: 'Basic' })
  listSelection = 'Basic';

  @Property({ type: 'json' })
  formData!: string[];

  @Property({ type: 'json' })
  events!: string[];

  @Property({ type: 'boolean', default: true })
  active = true;

  /** gone or failing (kernel/vocabulary.ts DISABLED_REASONS). */
  @Property({ type: 'string', length: 16, nullable: true })
  disabledReason?: string | null;

  @Property({ type: 'text', hidden: true })
  secretSealed!: string;

  @Property({ type: 'text', nullable: true, hidden: true })
  previousSecretSealed?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  previousSecretExpiresAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  failingSince?: Date | null;

  @Property({ type: 'integer', nullable: true })
  concurrency?: number | null;

  @Property({ type: 'integer', nullable: true })
  rateLimit?: number | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  pausedUntil?: Date | null;

  @Property({ type: 'json', default: '[]' })
  /** Custom headers: a secret one's value sealed. */
  headers: Array<{ name: string; value?: string; sealed?: string }> = [];

  @Property({ type: 'json', default: '{}' })
  filters: Record<string, unknown> = {};

  /** How many notices of failing the company has had (before the webhook is disabled). */
  @Property({ type: 'smallint', default: 0 })
  failingNotified = 0;

  @Property({ type: 'text', nullable: true, hidden: true })
  signingKeySealed?: string | null;

  @Property({ type: 'text', nullable: true })
  publicKey?: string | null;

  @Property({ type: 'text', nullable: true, hidden: true })
  previousSigningKeySealed?: string | null;

  @Property({ type: 'text', nullable: true })
  previousPublicKey?: string | null;

  @Property({ type: 'text', nullable: true, hidden: true })
  urlSealed?: string | null;

  /** none or subject: whether deliveries of one subject are sent in order. */
  @Property({ type: 'string', length: 16, default: 'none' })
  ordering = 'none';

  @Property({ type: 'text', nullable: true, hidden: true })
  credentialsSealed?: string | null;
}
