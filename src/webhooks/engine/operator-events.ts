import type { RequestContext } from '../../context/request-context.js';
import type { Webhook } from '../../entities/webhook.entity.js';
import { webhookRepository } from '../../repositories/webhook.repository.js';
import type { SendResult } from './attempt.js';

// Operator events (Svix's endpoint.disabled and message.attempt.exhausted,
// Outpost's alerts on its failure threshold): what happens to the company's
// webhooks, recorded by the delivery engine like any domain event and in the
// unit of work of the change it reports, so the event is kept and delivered
// exactly when the change commits. The outbox never delivers one to the
// webhook it is about.
//
// - webhook.failing: once at 50 % and once at 90 % of WEBHOOK_DISABLE_AFTER
//   since the failures began, told at the first failed attempt past each
//   mark (failing_notified keeps how far it has been told);
// - webhook.disabled: switched off by a 410 or by failing for the whole window;
// - webhook.recovered: a webhook told as failing answered 2xx again (a
//   failure or two between successes, never announced, is not news);
// - delivery.exhausted: the last attempt of a delivery's schedule failed
//   (never for a delivery that carried an operator event: two failing
//   webhooks would tell each other about each other forever).

/** A delivery whose schedule ran out, as the settle statement returns it. */
export interface ExhaustedDelivery {
  id: string;
  webhook_id: number;
  event: string;
  event_id: string;
  number: number;
}

/** Where a failing webhook stands: the notice it is due, 0 when none. */
export function failingPercent(failingSince: Date, disableAfterMs: number, now = Date.now()): 0 | 50 | 90 {
  const passed = (now - failingSince.getTime()) / disableAfterMs;
  return passed >= 0.9 ? 90 : passed >= 0.5 ? 50 : 0;
}

const about = (webhook: Webhook) => ({ webhook_id: String(webhook.id), title: webhook.title, url: webhook.url });
const lastAnswer = (result: SendResult) => ({
  last_status_code: result.statusCode,
  last_error: result.statusCode === null ? result.error : null,
});

export class OperatorEvents {
  constructor(private readonly disableAfterMs: number) {}

  /** Switches the webhook off (if it is on) and tells the company why, in the caller's unit of work; false when it was already off. */
  async disable(ctx: RequestContext, webhookId: number, reason: 'gone' | 'failing'): Promise<boolean> {
    const webhook = await webhookRepository.lockedWhen(ctx, webhookId, { active: true });
    if (!webhook) return false;
    webhook.active = false;
    webhook.disabledReason = reason;
    await webhookRepository.save(ctx);
    await ctx.events.record('webhook.disabled', {
      ...about(webhook),
      reason,
      failing_since: webhook.failingSince?.toISOString() ?? null,
      disabled_at: new Date().toISOString(),
    });
    return true;
  }

  /** Tells the company that an active webhook has failed for `percent` of the window, unless it was told already. */
  async failing(ctx: RequestContext, webhookId: number, percent: 50 | 90, last: SendResult): Promise<void> {
    const webhook = await webhookRepository.lockedWhen(ctx, webhookId, {
      active: true,
      failingSince: { $ne: null },
      failingNotified: { $lt: percent },
    });
    if (!webhook) return;
    webhook.failingNotified = percent;
    await webhookRepository.save(ctx);
    const since = webhook.failingSince!;
    await ctx.events.record('webhook.failing', {
      ...about(webhook),
      percent,
      failing_since: since.toISOString(),
      disable_at: new Date(since.getTime() + this.disableAfterMs).toISOString(),
      ...lastAnswer(last),
    });
  }

  /** Clears the failing clock of an active webhook told as failing, and tells the company it recovered. */
  async recovered(ctx: RequestContext, webhookId: number): Promise<void> {
    const webhook = await webhookRepository.lockedWhen(ctx, webhookId, {
      active: true,
      failingSince: { $ne: null },
      failingNotified: { $gt: 0 },
    });
    if (!webhook) return;
    const since = webhook.failingSince!;
    webhook.failingSince = null;
    webhook.failingNotified = 0;
    await webhookRepository.save(ctx);
    await ctx.events.record('webhook.recovered', {
      ...about(webhook),
      failing_since: since.toISOString(),
      recovered_at: new Date().toISOString(),
    });
  }

  /** Tells the company that a delivery's last attempt failed. */
  async exhausted(ctx: RequestContext, delivery: ExhaustedDelivery, last: SendResult): Promise<void> {
    const webhook = await webhookRepository.byId(ctx, delivery.webhook_id);
    if (!webhook) return;
    await ctx.events.record('delivery.exhausted', {
      ...about(webhook),
      delivery_id: delivery.id,
      event: delivery.event,
      event_id: delivery.event_id,
      attempts: delivery.number,
      ...lastAnswer(last),
    });
  }
}
