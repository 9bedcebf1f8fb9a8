import type { RequestContext } from '../../context/request-context.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { NotFoundError } from '../../kernel/errors.js';
import type { Webhook } from '../../entities/webhook.entity.js';
import { type Hits, type WebhookListed, webhookRepository } from '../../repositories/webhook.repository.js';
import type { Listed } from '../../repositories/common.js';
import { EVENT_NAMES } from '../../events/catalog.js';
import type { IdCodec } from '../../kernel/ids.js';
import { likePattern, pageOf, pageWindow, type Page, type PageArgs } from '../../db/reads.js';
import { Rules } from '../../kernel/validation.js';
import type { DestinationPolicy } from './destination.js';
import { headerRecords, type WebhookHeaderRecord } from './headers.js';
import { checkWebhook, type WebhookInput } from './webhook-rules.js';
import { newSecret, newSigningKey, publicKeyOf } from './signing.js';
import { filterRecords, type StoredFilters, type WebhookFilterRecord } from './filters.js';
import { type CredentialsRecord, credentialsRecord, openCredentials } from './credentials.js';

export type { WebhookInput } from './webhook-rules.js';

// Webhook configuration (docs/design.md §5): a company's endpoints, their
// events, form data, secrets and rotation, and their limits. The deliveries
// live in delivery.service.ts.

export interface WebhookListArgs extends PageArgs {
  search?: string | null;
  event?: string | null;
  active?: boolean | null;
}

export interface WebhookSecret {
  secret: string;
  previousSecretExpiresAt: Date | null;
}

/** An Ed25519 webhook's public key, and during a rotation's grace the previous one and when it stops signing. */
export interface WebhookPublicKey {
  publicKey: string;
  previousPublicKey: string | null;
  previousPublicKeyExpiresAt: Date | null;
}

/** A webhook as the GraphQL Webhook type serves it (never its secret): its entity's fields, and these in their served shapes. */
export interface WebhookRecord
  extends Pick<
      Webhook,
      'id' | 'title' | 'url' | 'method' | 'listSelection' | 'formData' | 'events' | 'active' | 'createdAt' | 'updatedAt'
    >,
    Hits {
  rateLimit: number | null;
  /** Custom headers; a secret one's value is null. */
  headers: WebhookHeaderRecord[];
  /** Payload filters, at most one per subscribed event type. */
  filters: WebhookFilterRecord[];
  disabledReason: string | null;
  /** The endpoint's concurrency now (the starting one until it first adapts). */
  concurrency: number;
  /** Until when a Retry-After pauses it; null once that has passed. */
  pausedUntil: Date | null;
  signatureScheme: string;
  ordering: string;
  /** Ed25519 (v1a) only: the key receivers verify with. */
  publicKey: string | null;
  /** OAuth2 client and client TLS, without a secret. */
  credentials: CredentialsRecord | null;
}

export class WebhookService {
  constructor(
    private readonly ids: IdCodec,
    private readonly box: SecretBox,
    private readonly settings: { destinations: DestinationPolicy; rotationGraceMs: number; startConcurrency: number },
  ) {}

  async list(ctx: RequestContext, args: WebhookListArgs): Promise<Page<WebhookRecord>> {
    const window = pageWindow(args);
    new Rules().oneOf('event', args.event, EVENT_NAMES).check();
    const [rows, total] = await webhookRepository.page(
      ctx,
      {
        pattern: args.search ? likePattern(args.search) : undefined,
        active: args.active ?? undefined,
        event: args.event ?? undefined,
      },
      window,
    );
    return pageOf(
      rows.map(([webhook, hits]) => this.record(webhook, hits)),
      total,
      window,
    );
  }

  /** One webhook of the company, by any id form; 404 for anything else. */
  async view(ctx: RequestContext, rawId: string): Promise<WebhookRecord> {
    const webhook = await this.find(ctx, rawId);
    return this.record(webhook, await webhookRepository.hits(ctx, webhook));
  }

  /** The webhook, for this module's own changes and the consumer tools. */
  find(ctx: RequestContext, rawId: string, lock = false): Promise<Webhook> {
    return webhookRepository.owned(ctx, this.ids, rawId, lock);
  }

  private record(w: Listed<Webhook, WebhookListed>, { hits, lastHit }: Hits): WebhookRecord {
    return {
      id: w.id,
      title: w.title,
      url: w.url,
      method: w.method,
      listSelection: w.listSelection,
      formData: w.formData,
      events: w.events,
      headers: headerRecords(w.headers ?? []),
      filters: filterRecords(w.filters as StoredFilters),
      active: w.active,
      disabledReason: w.disabledReason ?? null,
      hits,
      lastHit,
      concurrency: w.concurrency ?? this.settings.startConcurrency,
      rateLimit: w.rateLimit ?? null,
      pausedUntil: w.pausedUntil && w.pausedUntil.getTime() > Date.now() ? w.pausedUntil : null,
      signatureScheme: w.signingKeySealed ? 'v1a' : 'v1',
      ordering: w.ordering,
      publicKey: w.publicKey ?? null,
      credentials: credentialsRecord(openCredentials(this.box, w.credentialsSealed ?? null)),
      createdAt: w.createdAt,
      updatedAt: w.updatedAt,
    };
  }

  /** Creates a webhook with a new secret; the secret is returned this once (and by the reveal route). */
  async create(
    ctx: RequestContext,
    input: WebhookInput,
    { session = false }: { session?: boolean } = {},
  ): Promise<{ webhook: WebhookRecord; secret: string }> {
    const fields = checkWebhook(input, {
      creating: true,
      session,
      box: this.box,
      destinations: this.settings.destinations,
    });
    const secret = newSecret();
    const key = input.signatureScheme === 'v1a' ? newSigningKey() : null;
    const webhook = await webhookRepository.create(ctx, {
      title: fields.title!,
      url: fields.url!,
      method: 'POST',
      listSelection: fields.listSelection!,
      formData: fields.formData!,
      events: fields.events!,
      active: input.active ?? true,
      rateLimit: fields.rateLimit ?? null,
      headers: fields.headers ?? [],
      filters: fields.filters ?? {},
      secretSealed: this.box.seal(secret),
      signingKeySealed: key && this.box.seal(key),
      publicKey: key && publicKeyOf(key),
      urlSealed: fields.urlSealed ?? null,
      ordering: fields.ordering ?? 'none',
      credentialsSealed: fields.credentialsSealed ?? null,
      failingNotified: 0,
    });
    return { webhook: this.record(webhook, { hits: 0, lastHit: null }), secret };
  }

  async update(ctx: RequestContext, rawId: string, input: WebhookInput): Promise<WebhookRecord> {
    const webhook = await this.find(ctx, rawId, true);
    const fields = checkWebhook(input, {
      creating: false,
      current: webhook,
      box: this.box,
      destinations: this.settings.destinations,
    });
    const { rateLimit, filters, ...rest } = fields;
    Object.assign(webhook, rest);
    if (fields.url !== undefined) webhook.urlSealed = fields.urlSealed ?? null;
    if (filters !== undefined) webhook.filters = filters;
    if (rateLimit !== undefined && rateLimit !== webhook.rateLimit) {
      webhook.rateLimit = rateLimit;
      await webhookRepository.refillRate(ctx, webhook);
    }
    if (input.signatureScheme === 'v1a' && !webhook.signingKeySealed) {
      const key = newSigningKey();
      webhook.signingKeySealed = this.box.seal(key);
      webhook.publicKey = publicKeyOf(key);
    } else if (input.signatureScheme === 'v1' && webhook.signingKeySealed) {
      Object.assign(webhook, {
        signingKeySealed: null,
        publicKey: null,
        previousSigningKeySealed: null,
        previousPublicKey: null,
      });
    }
    if (input.active === true) {
      Object.assign(webhook, { active: true, disabledReason: null, failingSince: null, failingNotified: 0 });
    } else if (input.active === false && webhook.active) {
      webhook.active = false;
      await webhookRepository.cancelPending(ctx, webhook.id);
    }
    await webhookRepository.save(ctx);
    return this.record(webhook, await webhookRepository.hits(ctx, webhook));
  }

  /** Deletes the webhook; its deliveries and their attempts go with it (pending ones are never sent). */
  async delete(ctx: RequestContext, rawId: string): Promise<void> {
    await webhookRepository.remove(ctx, await this.find(ctx, rawId));
  }

  async secret(ctx: RequestContext, rawId: string): Promise<WebhookSecret> {
    const webhook = await this.find(ctx, rawId);
    const inGrace = webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt.getTime() > Date.now();
    return {
      secret: this.box.open(webhook.secretSealed)!,
      previousSecretExpiresAt: inGrace ? webhook.previousSecretExpiresAt! : null,
    };
  }

  /** An Ed25519 webhook's public keys; 404 for a webhook that signs with HMAC. */
  async publicKey(ctx: RequestContext, rawId: string): Promise<WebhookPublicKey> {
    const webhook = await this.find(ctx, rawId);
    if (!webhook.publicKey) throw new NotFoundError('Public key (the webhook signs with HMAC, v1)');
    const inGrace = webhook.previousPublicKey && webhook.previousSecretExpiresAt!.getTime() > Date.now();
    return {
      publicKey: webhook.publicKey,
      previousPublicKey: inGrace ? (webhook.previousPublicKey ?? null) : null,
      previousPublicKeyExpiresAt: inGrace ? (webhook.previousSecretExpiresAt ?? null) : null,
    };
  }

  /** A new secret (and Ed25519 key); the old ones keep signing (a second signature) for the grace period. */
  async rotateSecret(ctx: RequestContext, rawId: string): Promise<WebhookSecret> {
    const webhook = await this.find(ctx, rawId, true);
    const secret = newSecret();
    const previousSecretExpiresAt = new Date(Date.now() + this.settings.rotationGraceMs);
    webhook.previousSecretSealed = webhook.secretSealed;
    webhook.previousSecretExpiresAt = previousSecretExpiresAt;
    webhook.secretSealed = this.box.seal(secret);
    if (webhook.signingKeySealed) {
      const key = newSigningKey();
      webhook.previousSigningKeySealed = webhook.signingKeySealed;
      webhook.previousPublicKey = webhook.publicKey;
      webhook.signingKeySealed = this.box.seal(key);
      webhook.publicKey = publicKeyOf(key);
    }
    await webhookRepository.save(ctx);
    return { secret, previousSecretExpiresAt };
  }
}
