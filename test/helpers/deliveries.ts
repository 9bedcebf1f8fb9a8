import { newDeliveryId, payloadText } from '../../src/webhooks/config/payload.js';
import { WebhookOutbox } from '../../src/webhooks/engine/outbox.js';
import type { TestApp } from './app.js';
import { eventually } from './receiver.js';

export interface QueuedDelivery {
  id: string;
  webhookId: number;
  payload: string;
}

/**
 * `count` agent.created deliveries over `hooks` in turn, written through the outbox (as a test send writes
 * them: each due now, no stored event), 500 to a transaction; a worker started afterwards finds them waiting.
 */
export async function queueDeliveries(
  app: TestApp,
  hooks: number[],
  count: number,
  name: string,
): Promise<QueuedDelivery[]> {
  const [{ id: company }] = await app.sql<{ id: number }>("SELECT id FROM companies WHERE name = 'Acme Agency'");
  const outbox = new WebhookOutbox();
  const now = new Date();
  const queued: QueuedDelivery[] = [];
  for (let start = 0; start < count; start += 500) {
    const batch = Array.from({ length: Math.min(500, count - start) }, (_, k) => {
      const i = start + k;
      const webhookId = hooks[i % hooks.length];
      const payload = payloadText({
        event: 'agent.created',
        occurredAt: now,
        webhookId,
        data: { agent_id: String(i), name, active: true, online: false },
        contact: null,
      });
      return { id: newDeliveryId(), webhookId, payload };
    });
    await app.running.services.contexts.forSystem(company, 'test').unitOfWork((ctx) =>
      outbox.insert(
        ctx,
        batch.map((d) => ({ ...d, companyId: company, event: 'agent.created', trigger: 'scheduled', due: now })),
      ),
    );
    queued.push(...batch);
  }
  return queued;
}

/** The error of the webhook's first finished attempt, once it has one. */
export const firstAttemptError = (app: TestApp, hookId: number) =>
  eventually(
    async () =>
      (
        await app.sql<{ error: string | null }>(
          'SELECT a.error FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id ' +
            'WHERE d.webhook_id = $1 AND a.finished_at IS NOT NULL ORDER BY a.attempted_at, a.number LIMIT 1',
          [hookId],
        )
      )[0]?.error ?? undefined,
    15_000,
    'a failed attempt',
  );

/** Waits until the webhook has `count` deliveries recorded succeeded. */
export const allSucceeded = (app: TestApp, hookId: number, count: number) =>
  eventually(
    async () => {
      const [{ n }] = await app.sql(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'",
        [hookId],
      );
      return n === count || undefined;
    },
    10_000,
    `${count} deliveries succeeded`,
  );
