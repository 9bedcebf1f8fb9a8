import { type FilterQuery, LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { holdLock, LOCKS } from '../db/locks.js';
import { type PageWindow, readPage } from '../db/reads.js';
import { WebhookCounter } from '../entities/webhook-counter.entity.js';
import { WebhookDelivery } from '../entities/webhook-delivery.entity.js';
import { Webhook } from '../entities/webhook.entity.js';
import type { IdCodec } from '../kernel/ids.js';
import { type Listed, listed, ownedEntity } from './common.js';

// A company's webhooks (docs/design.md §5) and the counters the engine keeps of each: the one module that knows their
// tables outside the delivery engine (webhooks/engine/ owns the columns it settles). Its list is one statement (a
// page of webhooks with their counters).

/** What a webhook is listed and served with: everything but its secrets and the engine's own state. */
export type WebhookListed =
  | 'id'
  | 'title'
  | 'url'
  | 'method'
  | 'listSelection'
  | 'formData'
  | 'events'
  | 'headers'
  | 'filters'
  | 'active'
  | 'disabledReason'
  | 'concurrency'
  | 'rateLimit'
  | 'pausedUntil'
  | 'signingKeySealed'
  | 'publicKey'
  | 'ordering'
  | 'credentialsSealed'
  | 'createdAt'
  | 'updatedAt';

/** What the counters say of a webhook: how many deliveries it has had, and the last. */
export interface Hits {
  hits: WebhookCounter['hits'];
  lastHit: Date | null;
}

const LISTED_COLUMNS = `w.id, w.title, w.url, w.method, w.list_selection, w.form_data, w.events, w.headers, w.filters, w.active,
  w.disabled_reason, w.concurrency, w.rate_limit, w.paused_until, w.signing_key_sealed, w.public_key, w.ordering,
  w.credentials_sealed, w.created_at, w.updated_at, coalesce(c.hits, 0)::int AS hits, c.last_hit`;

export const webhookRepository = {
  /** One page of the company's webhooks, newest first, each with its counters. */
  async page(
    ctx: RequestContext,
    filter: { pattern?: string; active?: boolean; event?: string },
    window: PageWindow,
  ): Promise<[Array<[Listed<Webhook, WebhookListed>, Hits]>, number]> {
    const params: unknown[] = [await ctx.companyId()];
    let where = 'w.company_id = $1';
    if (filter.pattern) {
      const n = params.push(filter.pattern);
      where += ` AND (w.title ILIKE $${n} OR w.url ILIKE $${n})`;
    }
    if (filter.active !== undefined) where += ` AND w.active = $${params.push(filter.active)}`;
    if (filter.event) where += ` AND w.events @> $${params.push(JSON.stringify([filter.event]))}::jsonb`;
    const { rows, total } = await readPage<Record<string, unknown>>(
      ctx,
      {
        select: LISTED_COLUMNS,
        from: 'webhooks w LEFT JOIN webhook_counters c ON c.webhook_id = w.id',
        where,
        orderBy: 'w.created_at DESC, w.id DESC',
        params,
      },
      window,
    );
    const webhooks = listed<Webhook, WebhookListed>(ctx, Webhook, rows);
    const hits = listed<WebhookCounter, 'hits' | 'lastHit'>(ctx, WebhookCounter, rows) as Hits[];
    return [webhooks.map((webhook, i) => [webhook, hits[i]]), total];
  },

  /** The company's webhook by any id form; `lock`: locked until the unit of work ends (one change at a time). 404 otherwise. */
  owned(ctx: RequestContext, ids: IdCodec, raw: string, lock = false): Promise<Webhook> {
    return ownedEntity(ctx, ids, Webhook, { kind: 'webhook', what: 'Webhook', lock }, raw);
  },

  /** The webhook's counters (none yet: no hits). */
  async hits(ctx: RequestContext, webhook: Webhook): Promise<Hits> {
    const counter = await ctx.em.findOne(WebhookCounter, { webhook });
    return { hits: counter?.hits ?? 0, lastHit: counter?.lastHit ?? null };
  },

  /** Makes a webhook and its counters, whose row the delivery claim locks. */
  async create(
    ctx: RequestContext,
    fields: Omit<Webhook, 'id' | 'company' | 'createdAt' | 'updatedAt'>,
  ): Promise<Webhook> {
    const now = new Date();
    const webhook = ctx.em.create(Webhook, {
      ...fields,
      company: await ctx.companyId(),
      createdAt: now,
      updatedAt: now,
    });
    ctx.em.create(WebhookCounter, { webhook });
    await ctx.em.flush();
    return webhook;
  },

  /** A new rate limit starts with a full bucket. */
  async refillRate(ctx: RequestContext, webhook: Webhook): Promise<void> {
    await ctx.em.nativeUpdate(WebhookCounter, { webhook }, { rateTokens: null, rateCheckedAt: null });
  },

  /** Cancels the webhook's pending deliveries that no worker holds (it was switched off). */
  async cancelPending(ctx: RequestContext, webhookId: number): Promise<void> {
    await ctx.em.nativeUpdate(
      WebhookDelivery,
      { webhookId, status: 'pending', leaseToken: null },
      { status: 'cancelled', nextAttemptAt: null },
    );
  },

  /**
   * Deletes the webhook; its deliveries and their attempts go with it (a trigger), pending ones never sent. It waits
   * for the writes that read the webhook to commit first, so their deliveries go too (docs/adr/0074).
   */
  async remove(ctx: RequestContext, webhook: Webhook): Promise<void> {
    await holdLock(ctx, LOCKS.webhookWriters, webhook.company.id);
    await ctx.em.remove(webhook).flush();
  },

  /** A webhook by id, whoever's (the delivery engine's operator events), or null. */
  byId(ctx: RequestContext, id: number): Promise<Webhook | null> {
    return ctx.em.findOne(Webhook, id);
  },

  /**
   * The webhook by id, locked until the unit of work ends, when it is in the state `where` says (the engine's
   * operator events change a webhook only from the state they report on); null otherwise.
   */
  lockedWhen(ctx: RequestContext, id: number, where: FilterQuery<Webhook>): Promise<Webhook | null> {
    return ctx.em.findOne(Webhook, { $and: [{ id }, where] }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  },

  /** Writes what was changed on the webhooks this unit of work holds. */
  save(ctx: RequestContext): Promise<void> {
    return ctx.em.flush();
  },
};
