import { LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { ListenExchange } from '../entities/listen-exchange.entity.js';
import { ListenSession } from '../entities/listen-session.entity.js';
import { Webhook } from '../entities/webhook.entity.js';

// The sessions of `npm run listen` and the attempts relayed through them: the one module that knows their tables.
// A session is alive until a time its API process keeps moving forward; an exchange is an attempt's request and, once
// the command reports it, the local answer. The relay's NOTIFY is the one statement written by hand.

/** A local answer as the command reports it. */
export type ExchangeAnswer = Pick<ListenExchange, 'status' | 'error' | 'responseBody'>;

export const listenRepository = {
  /** Opens the session of a webhook just made, alive for `seconds`. */
  async open(ctx: RequestContext, webhookId: number, seconds: number): Promise<void> {
    ctx.em.create(ListenSession, {
      webhook: ctx.em.getReference(Webhook, webhookId),
      companyId: await ctx.companyId(),
      aliveUntil: new Date(Date.now() + seconds * 1000),
    });
    await ctx.em.flush();
  },

  /** Whether the webhook's session is alive. */
  async alive(ctx: RequestContext, webhookId: number): Promise<boolean> {
    const session = await ctx.em.findOne(ListenSession, { webhook: webhookId });
    return !!session && session.aliveUntil.getTime() > Date.now();
  },

  /** Keeps these webhooks' sessions alive for `seconds` more. */
  async keepAlive(ctx: RequestContext, webhookIds: number[], seconds: number): Promise<void> {
    await ctx.em.nativeUpdate(
      ListenSession,
      { webhook: { $in: webhookIds } },
      { aliveUntil: new Date(Date.now() + seconds * 1000) },
    );
  },

  /** At most `limit` sessions nobody has kept alive: their webhooks and companies. */
  async ended(ctx: RequestContext, limit: number): Promise<Array<{ webhookId: number; companyId: number }>> {
    const sessions = await ctx.em.find(ListenSession, { aliveUntil: { $lt: new Date() } }, { limit });
    return sessions.map((session) => ({ webhookId: session.webhook.id, companyId: session.companyId }));
  },

  /** Keeps an attempt's request under `key` and tells every API process (the one holding the session relays it). */
  async relay(
    ctx: RequestContext,
    channel: string,
    exchange: { key: string; webhookId: number; companyId: number; request: Record<string, unknown> },
  ): Promise<void> {
    const { key, webhookId, companyId, request } = exchange;
    ctx.em.create(ListenExchange, {
      key,
      webhook: ctx.em.getReference(Webhook, webhookId),
      companyId,
      request,
      createdAt: new Date(),
    });
    await ctx.em.flush();
    await ctx.sql('SELECT pg_notify($1, $2)', [channel, JSON.stringify({ key, webhookId })]);
  },

  /** An attempt's request, when the key is the webhook's. */
  async request(ctx: RequestContext, key: string, webhookId: number): Promise<Record<string, unknown> | undefined> {
    return (await ctx.em.findOne(ListenExchange, { key, webhook: webhookId }))?.request;
  },

  /** The exchange as it is now (read again each time: the command answers it from another process); null once gone. */
  current(ctx: RequestContext, key: string): Promise<ListenExchange | null> {
    return ctx.em.findOne(ListenExchange, { key }, { refresh: true });
  },

  /** Writes the local answer of the company's exchange: `missing` for none, `answered` when it has one already. */
  async answer(ctx: RequestContext, key: string, answer: ExchangeAnswer): Promise<'missing' | 'answered' | 'kept'> {
    const exchange = await ctx.em.findOne(
      ListenExchange,
      { key, companyId: await ctx.companyId() },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!exchange) return 'missing';
    if (exchange.answeredAt) return 'answered';
    Object.assign(exchange, answer, { answeredAt: new Date() });
    await ctx.em.flush();
    return 'kept';
  },
};
