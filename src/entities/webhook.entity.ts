import { Entity, Formula, Index, Property, type Opt } from '@mikro-orm/core';
import { CompanyOwned } from './company-owned.js';

export type DisabledReason = 'gone' | 'failing';

/** A webhook subscription of a company (docs/design.md §5). */
@Entity({ tableName: 'webhooks' })
@Index({ properties: ['company', 'createdAt'] })
export class Webhook extends CompanyOwned {
  @Property({ length: 255 })
  title!: string;

  @Property({ length: 2048 })
  url!: string;

  @Property({ length: 8, default: 'POST' })
  method: Opt<string> = 'POST';

  @Property({ length: 16, default: 'Basic' })
  listSelection: Opt<string> = 'Basic';

  /** Contact fields every payload carries in data.contact. */
  @Property({ type: 'json' })
  formData!: string[];

  /** Subscribed event types, in catalog order. */
  @Property({ type: 'json' })
  events!: string[];

  /** Custom headers sent on every attempt; a secret one's value sealed under APP_KEY (webhooks/headers.ts). */
  @Property({ type: 'json', default: '[]' })
  headers: Opt<Array<{ name: string; value?: string; sealed?: string }>> = [];

  /** Payload filters by event type (webhooks/filters.ts): an event a filter rejects makes no delivery. */
  @Property({ type: 'json', default: '{}' })
  filters: Opt<Record<string, unknown>> = {};

  @Property({ default: true })
  active: Opt<boolean> = true;

  /** Set when the service switched the webhook off: gone (a 410) or failing (every delivery failed for WEBHOOK_DISABLE_AFTER). */
  @Property({ length: 16, nullable: true })
  disabledReason?: DisabledReason | null;

  /** Attempts made (webhook_counters, updated by every claim apart from this row: webhooks/claim.ts). */
  @Formula((alias) => `coalesce((SELECT c.hits FROM webhook_counters c WHERE c.webhook_id = ${alias}.id), 0)`, {
    type: 'integer',
  })
  hits: Opt<number> = 0;

  @Formula((alias) => `(SELECT c.last_hit FROM webhook_counters c WHERE c.webhook_id = ${alias}.id)`, {
    type: 'datetime',
    nullable: true,
  })
  lastHit?: Date | null;

  /** The signing secret, sealed under APP_KEY. */
  @Property({ type: 'text' })
  secretSealed!: string;

  /** The secret before the last rotation, which keeps signing until previousSecretExpiresAt. */
  @Property({ type: 'text', nullable: true })
  previousSecretSealed?: string | null;

  @Property({ type: 'datetime', nullable: true })
  previousSecretExpiresAt?: Date | null;

  /** Since when every delivery has failed (null after a success). */
  @Property({ type: 'datetime', nullable: true })
  failingSince?: Date | null;

  /** How much of the disable window webhook.failing has announced: 0, 50 or 90 (reset with the failing clock). */
  @Property({ type: 'smallint' })
  failingNotified: Opt<number> = 0;

  /** Attempts in flight at once: adaptive, from WEBHOOK_ENDPOINT_CONCURRENCY up to WEBHOOK_ENDPOINT_CONCURRENCY_MAX (null until first changed). */
  @Property({ type: 'integer', nullable: true })
  concurrency?: number | null;

  /** Deliveries per second at most, set by the user (null: no limit). */
  @Property({ type: 'integer', nullable: true })
  rateLimit?: number | null;

  /** Nothing is sent before this time: the receiver's Retry-After. */
  @Property({ type: 'datetime', nullable: true })
  pausedUntil?: Date | null;
}
