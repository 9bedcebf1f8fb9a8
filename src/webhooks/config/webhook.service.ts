import type { RequestContext } from '../../context/request-context.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { NotFoundError } from '../../kernel/errors.js';
import { EVENT_NAMES } from '../../events/catalog.js';
import type { IdCodec } from '../../kernel/ids.js';
import { idOf } from '../../db/lookup.js';
import { holdLock, LOCKS } from '../../db/locks.js';
import { likePattern, pageOf, pageWindow, type Page, type PageArgs } from '../../db/reads.js';
import { WEBHOOK_SELECT, toWebhook, webhookOf, webhookPage, type Webhook } from './webhook-rows.js';
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

/** A webhook as the GraphQL Webhook type serves it (never its secret): its row's fields, and these in their served shapes. */
export interface WebhookRecord
  extends Pick<
    Webhook,
    | 'id'
    | 'title'
    | 'url'
    | 'method'
    | 'listSelection'
    | 'formData'
    | 'events'
    | 'active'
    | 'hits'
    | 'lastHit'
    | 'rateLimit'
    | 'createdAt'
    | 'updatedAt'
  > {
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
    const params: unknown[] = [await ctx.companyId()];
    let where = 'w.company_id = $1';
    if (args.search) {
      const n = params.push(likePattern(args.search));
      where += ` AND (w.title ILIKE $${n} OR w.url ILIKE $${n})`;
    }
    if (args.active !== undefined && args.active !== null) where += ` AND w.active = $${params.push(args.active)}`;
    if (args.event) where += ` AND w.events @> $${params.push(JSON.stringify([args.event]))}::jsonb`;
    const { rows, total } = await webhookPage(ctx, where, params, window);
    return pageOf(
      rows.map((webhook) => this.record(webhook)),
      total,
      window,
    );
  }

  /** One webhook of the company, by any id form; 404 for anything else. */
  async view(ctx: RequestContext, rawId: string): Promise<WebhookRecord> {
    return this.record(await this.find(ctx, rawId));
  }

  /** The webhook, for this module's own changes and the consumer tools. */
  async find(ctx: RequestContext, rawId: string): Promise<Webhook> {
    const webhook = await webhookOf(ctx, idOf(this.ids, rawId, 'webhook', 'Webhook'), await ctx.companyId());
    if (!webhook) throw new NotFoundError('Webhook');
    return webhook;
  }

  private record(w: Webhook): WebhookRecord {
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
      hits: w.hits,
      lastHit: w.lastHit ?? null,
      concurrency: w.concurrency ?? this.settings.startConcurrency,
      rateLimit: w.rateLimit ?? null,
      pausedUntil: w.pausedUntil && w.pausedUntil.getTime() > Date.now() ? w.pausedUntil : null,
      signatureScheme: w.signingKeySealed ? 'v1a' : 'v1',
      ordering: w.ordering,
      publicKey: w.publicKey,
      credentials: credentialsRecord(openCredentials(this.box, w.credentialsSealed)),
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
    const now = new Date();
    const [row] = await ctx.sql(
      `WITH w AS (
         INSERT INTO webhooks (company_id, title, url, list_selection, form_data, events, active, rate_limit, headers,
           filters, secret_sealed, created_at, updated_at, signing_key_sealed, public_key, url_sealed, ordering,
           credentials_sealed)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13, $14, $15, $16, $17) RETURNING *),
       -- Its counters (hits, rate bucket, attempts in flight), whose row the delivery claim locks.
       counters AS (INSERT INTO webhook_counters (webhook_id) SELECT id FROM w)
       SELECT ${WEBHOOK_SELECT} FROM w LEFT JOIN webhook_counters c ON false`,
      [
        await ctx.companyId(),
        fields.title!,
        fields.url!,
        fields.listSelection!,
        JSON.stringify(fields.formData!),
        JSON.stringify(fields.events!),
        input.active ?? true,
        fields.rateLimit ?? null,
        JSON.stringify(fields.headers ?? []),
        JSON.stringify(fields.filters ?? {}),
        this.box.seal(secret),
        now,
        key && this.box.seal(key),
        key && publicKeyOf(key),
        fields.urlSealed ?? null,
        fields.ordering ?? 'none',
        fields.credentialsSealed ?? null,
      ],
    );
    return { webhook: this.record(toWebhook(row as never)), secret };
  }

  async update(ctx: RequestContext, rawId: string, input: WebhookInput): Promise<WebhookRecord> {
    const webhook = await this.find(ctx, rawId);
    const fields = checkWebhook(input, {
      creating: false,
      current: webhook,
      box: this.box,
      destinations: this.settings.destinations,
    });
    const set: string[] = [];
    const values: unknown[] = [webhook.id];
    const put = (column: string, value: unknown) => set.push(`${column} = $${values.push(value)}`);
    if (fields.title !== undefined) put('title', fields.title);
    if (fields.url !== undefined) put('url', fields.url);
    if (fields.url !== undefined) put('url_sealed', fields.urlSealed ?? null);
    if (fields.listSelection !== undefined) put('list_selection', fields.listSelection);
    if (fields.formData !== undefined) put('form_data', JSON.stringify(fields.formData));
    if (fields.events !== undefined) put('events', JSON.stringify(fields.events));
    if (fields.headers !== undefined) put('headers', JSON.stringify(fields.headers));
    if (fields.filters !== undefined) put('filters', JSON.stringify(fields.filters));
    if (fields.ordering !== undefined) put('ordering', fields.ordering);
    if (fields.credentialsSealed !== undefined) put('credentials_sealed', fields.credentialsSealed);
    if (fields.rateLimit !== undefined && fields.rateLimit !== webhook.rateLimit) {
      // A new limit starts with a full bucket.
      put('rate_limit', fields.rateLimit);
      await ctx.sql('UPDATE webhook_counters SET rate_tokens = NULL, rate_checked_at = NULL WHERE webhook_id = $1', [
        webhook.id,
      ]);
    }
    if (input.signatureScheme === 'v1a' && !webhook.signingKeySealed) {
      const key = newSigningKey();
      put('signing_key_sealed', this.box.seal(key));
      put('public_key', publicKeyOf(key));
    } else if (input.signatureScheme === 'v1' && webhook.signingKeySealed) {
      set.push(
        ...['signing_key_sealed', 'public_key', 'previous_signing_key_sealed', 'previous_public_key'].map(
          (c) => `${c} = NULL`,
        ),
      );
    }
    if (input.active === true) {
      put('active', true);
      set.push('disabled_reason = NULL', 'failing_since = NULL', 'failing_notified = 0');
    } else if (input.active === false && webhook.active) {
      put('active', false);
      await this.cancelPending(ctx, webhook.id);
    }
    return this.record(await this.change(ctx, webhook, set, values));
  }

  /** Sets columns of the webhook (values from $2 on; $1 is its id), and gives it as it is now. */
  private async change(ctx: RequestContext, webhook: Webhook, set: string[], values: unknown[]): Promise<Webhook> {
    if (set.length === 0) return webhook;
    await ctx.sql(`UPDATE webhooks SET ${set.join(', ')}, updated_at = now() WHERE id = $1`, values);
    return (await webhookOf(ctx, webhook.id, webhook.companyId))!;
  }

  /**
   * Deletes the webhook; its deliveries and their attempts go with it (pending ones are never sent). It waits
   * for the writes that read the webhook to commit first, so their deliveries go too (outbox.ts, docs/adr/0074).
   */
  async delete(ctx: RequestContext, rawId: string): Promise<void> {
    const webhook = await this.find(ctx, rawId);
    await holdLock(ctx, LOCKS.webhookWriters, webhook.companyId);
    await ctx.sql('DELETE FROM webhooks WHERE id = $1', [webhook.id]);
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
      previousPublicKey: inGrace ? webhook.previousPublicKey : null,
      previousPublicKeyExpiresAt: inGrace ? webhook.previousSecretExpiresAt : null,
    };
  }

  /** A new secret (and Ed25519 key); the old ones keep signing (a second signature) for the grace period. */
  async rotateSecret(ctx: RequestContext, rawId: string): Promise<WebhookSecret> {
    const webhook = await this.find(ctx, rawId);
    const secret = newSecret();
    const previousSecretExpiresAt = new Date(Date.now() + this.settings.rotationGraceMs);
    const set = ['previous_secret_sealed = secret_sealed', 'previous_secret_expires_at = $2', 'secret_sealed = $3'];
    const values = [webhook.id, previousSecretExpiresAt, this.box.seal(secret)];
    if (webhook.signingKeySealed) {
      const key = newSigningKey();
      set.push('previous_signing_key_sealed = signing_key_sealed', 'previous_public_key = public_key');
      set.push(
        `signing_key_sealed = $${values.push(this.box.seal(key))}`,
        `public_key = $${values.push(publicKeyOf(key))}`,
      );
    }
    await this.change(ctx, webhook, set, values);
    return { secret, previousSecretExpiresAt };
  }

  private async cancelPending(ctx: RequestContext, webhookId: number): Promise<void> {
    await ctx.sql(
      `UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE webhook_id = $1 AND status = 'pending' AND lease_token IS NULL`,
      [webhookId],
    );
  }
}
