import { ulid } from 'ulid';
import type { ContextFactory, RequestContext } from '../../context/request-context.js';
import { listen, type Listener } from '../../db/listener.js';
import { ConflictError, NotFoundError } from '../../kernel/errors.js';
import { pushStream } from '../../events/stream.js';
import { errorFields, type Logger } from '../../observability/logger.js';
import { Rules } from '../../kernel/validation.js';
import { listenRepository } from '../../repositories/listen.repository.js';
import type { Claimed } from '../engine/claim.js';
import { RESPONSE_KEEP } from '../engine/http-send.js';
import type { SendResult } from '../engine/attempt.js';
import type { WebhookRecord, WebhookService } from '../config/webhook.service.js';

// `npm run listen` (src/listen/cli.ts), the Stripe CLI's loop: a session
// webhook delivered over the live channel instead of HTTP, for as long as the
// command holds its GraphQL subscription.
//
// - The session webhook is an ordinary webhook (events, filters, secret,
//   delivery log, retries) whose url is `listen:` + the URL the command
//   forwards to. The API process that holds the subscription says it is
//   alive (listen_sessions.alive_until); the webhook is deleted when the
//   subscription ends, or by the reconciler once nobody says so any more.
// - An attempt of it is an exchange: the delivery engine (any worker) writes
//   the signed request, NOTIFYs, and waits for the answer within the
//   attempt's timeout; the API process holding the session hands the request
//   to the command, which POSTs it byte for byte to the local URL and reports
//   the local answer (answerListenDelivery). The engine records that answer
//   as the attempt's, so the session's log reads like any webhook's.

/** docs/webhooks.md's section on it (src/webhooks/config/docs.ts). */
export const LISTEN_DOC = `## Receiving webhooks on your machine (npm run listen)

Switchboard may run on a server that cannot reach \`localhost\`. From a
checkout of this repository, \`npm run listen\` receives its webhooks where
you develop, as the Stripe CLI's \`listen --forward-to\` does:

\`\`\`bash
SWITCHBOARD_URL=https://switchboard.example.com SWITCHBOARD_EMAIL=you@example.com SWITCHBOARD_PASSWORD=... \\
  npm run listen -- --forward-to http://localhost:4000/hook --events call.ended,sms.received
\`\`\`

It opens a session webhook (url \`listen:http://localhost:4000/hook\`) for the
events given (all when \`--events\` is left out), prints its signing secret,
and POSTs each delivery to the local URL byte for byte, with the same
\`webhook-id\`, \`webhook-timestamp\` and \`webhook-signature\` headers, so a
receiver verifies it as it would in production. It prints one line per
delivery with the local status. That status is the attempt's result in the
session webhook's delivery log: anything but 2xx within 9 seconds is retried
on the usual schedule, through the session. Ctrl-C ends the session and
deletes its webhook (so does losing the connection: a session nobody holds is
deleted within two minutes). It signs in with \`SWITCHBOARD_TOKEN\` (or
\`--token\`) or with \`SWITCHBOARD_EMAIL\` and \`SWITCHBOARD_PASSWORD\`, and
needs \`manage-webhooks\`. Over GraphQL it is the \`listen\` subscription and
the \`answerListenDelivery\` mutation.
`;

export const LISTEN_SCHEME = 'listen:';
export const isListenUrl = (url: string): boolean => url.startsWith(LISTEN_SCHEME);

const RELAY_CHANNEL = 'listen_relay';
/** How long a session is alive after its process last said so, and how often it says so. */
const ALIVE_SECONDS = 60;
const HEARTBEAT_MS = 20_000;
/** Deliveries a slow command may have waiting before its session is closed. */
const QUEUE_LIMIT = 1000;

export interface ListenRequest {
  key: string;
  deliveryId: string;
  event: string;
  attempt: number;
  headers: Record<string, string>;
  body: string;
}

export type ListenMessage = { session: { webhook: WebhookRecord; secret: string } } | { delivery: ListenRequest };

export interface ListenAnswer {
  status?: number | null;
  error?: string | null;
  responseBody?: string | null;
}

interface Held {
  companyId: number;
  push(request: ListenRequest): void;
}

export class ListenSessions {
  private readonly held = new Map<number, Held>();
  private listener?: Listener;
  private heartbeat?: NodeJS.Timeout;
  private databaseUrl?: string;
  private log?: Logger;

  constructor(
    private readonly webhooks: WebhookService,
    private readonly contexts: ContextFactory,
  ) {}

  /** In an API process: where to LISTEN once it holds a session. */
  start(databaseUrl: string, log: Logger): void {
    this.databaseUrl = databaseUrl;
    this.log = log;
  }

  /** Opens a session for the caller's company: its webhook and secret first, then each attempt to forward. */
  async open(ctx: RequestContext, events: string[], forwardTo: string): Promise<AsyncIterableIterator<ListenMessage>> {
    if (!this.databaseUrl) throw new Error('Listen sessions are not served by this process.');
    const rules = new Rules().required('forwardTo', forwardTo).maxChars('forwardTo', forwardTo, 2000);
    if (!rules.has('forwardTo') && !/^https?:$/.test(URL.parse(forwardTo)?.protocol ?? ''))
      rules.add('forwardTo', 'The forward-to field must be an http or https URL.');
    rules.check();
    const created = await this.webhooks.create(
      ctx,
      { title: `npm run listen to ${forwardTo}`.slice(0, 255), url: `${LISTEN_SCHEME}${forwardTo}`, events },
      { session: true },
    );
    const webhookId = created.webhook.id;
    const companyId = await ctx.companyId();
    await listenRepository.open(ctx, webhookId, ALIVE_SECONDS);
    const stream = pushStream<ListenMessage>(
      QUEUE_LIMIT,
      'The listen session fell too far behind and was closed; start it again.',
      async () => {
        this.held.delete(webhookId);
        this.watch();
        await this.end(companyId, webhookId);
      },
    );
    stream.push({ session: created });
    this.held.set(webhookId, { companyId, push: (request) => stream.push({ delivery: request }) });
    this.watch();
    return stream.iterator;
  }

  /** The command's report of the local answer to one attempt: 404 for another company's or an unknown key, 409 once answered. */
  async answer(ctx: RequestContext, key: string, answer: ListenAnswer): Promise<boolean> {
    const rules = new Rules();
    if (
      answer.status !== undefined &&
      answer.status !== null &&
      !(Number.isInteger(answer.status) && answer.status >= 100 && answer.status <= 599)
    ) {
      rules.add('status', 'The status field must be an HTTP status from 100 to 599.');
    }
    if ((answer.status ?? null) === null && !answer.error)
      rules.add('error', 'The error field is required when there is no status.');
    rules.maxChars('error', answer.error, 255).check();
    const kept = await listenRepository.answer(ctx, key, {
      status: answer.status ?? null,
      error: answer.error ?? null,
      responseBody: answer.responseBody?.slice(0, RESPONSE_KEEP) ?? null,
    });
    if (kept === 'missing') throw new NotFoundError('Listen delivery not found.');
    if (kept === 'answered') throw new ConflictError('This delivery has been answered already.');
    return true;
  }

  /** For the delivery engine: one signed attempt through its session, and the local answer (or none within timeoutMs). */
  async exchange(
    delivery: Claimed,
    body: string,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Promise<SendResult> {
    const started = Date.now();
    const ctx = this.contexts.forSystem(delivery.company_id, 'listen', delivery.id);
    if (!(await listenRepository.alive(ctx, delivery.webhook_id)))
      return {
        statusCode: null,
        responseBody: null,
        error: 'No npm run listen session is connected.',
        durationMs: Date.now() - started,
      };
    const key = `lx_${ulid()}`;
    const request = { deliveryId: delivery.id, event: delivery.event, attempt: delivery.attempt_count, headers, body };
    await listenRepository.relay(ctx, RELAY_CHANNEL, {
      key,
      webhookId: delivery.webhook_id,
      companyId: delivery.company_id,
      request,
    });
    // The answer is polled: sessions are a developer's, a few attempts at a time.
    for (let wait = 25; Date.now() - started < timeoutMs; wait = Math.min(wait * 2, 250)) {
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(wait, Math.max(1, timeoutMs - (Date.now() - started)))),
      );
      const exchange = await listenRepository.current(ctx, key);
      if (!exchange)
        return {
          statusCode: null,
          responseBody: null,
          error: 'The listen session ended.',
          durationMs: Date.now() - started,
        };
      if (exchange.answeredAt)
        return {
          statusCode: exchange.status ?? null,
          responseBody: exchange.responseBody ?? null,
          error: exchange.error ?? null,
          durationMs: Date.now() - started,
        };
    }
    return {
      statusCode: null,
      responseBody: null,
      error: `npm run listen did not answer within ${timeoutMs} ms.`,
      durationMs: Date.now() - started,
      timedOut: true,
    };
  }

  /** Deletes the session webhooks nobody has said are alive for a while (their API process stopped); how many. */
  async sweep(): Promise<number> {
    const maintenance = this.contexts.forMaintenance('listen-sweep');
    const ended = await listenRepository.ended(maintenance, 100);
    for (const { webhookId, companyId } of ended) await this.end(companyId, webhookId);
    return ended.length;
  }

  async stop(): Promise<void> {
    this.held.clear();
    this.watch();
  }

  private async end(companyId: number, webhookId: number): Promise<void> {
    try {
      await this.webhooks.delete(this.contexts.forSystem(companyId, 'listen-end'), String(webhookId));
    } catch (error) {
      if (!(error instanceof NotFoundError))
        this.log?.warn('listen session webhook not deleted', { webhookId, ...errorFields(error) });
    }
  }

  /** LISTENs and says its sessions are alive while it holds any; stops when it holds none. */
  private watch(): void {
    if (this.held.size > 0 && !this.listener && this.databaseUrl) {
      this.listener = listen(
        this.databaseUrl,
        RELAY_CHANNEL,
        { onNotify: (payload) => void this.relay(payload) },
        this.log!,
      );
      this.heartbeat = setInterval(() => void this.keepAlive(), HEARTBEAT_MS);
      this.heartbeat.unref();
    } else if (this.held.size === 0 && this.listener) {
      const listener = this.listener;
      this.listener = undefined;
      clearInterval(this.heartbeat);
      void listener.stop();
    }
  }

  private async keepAlive(): Promise<void> {
    const ids = [...this.held.keys()];
    if (ids.length === 0) return;
    await listenRepository
      .keepAlive(this.contexts.forMaintenance('listen-alive'), ids, ALIVE_SECONDS)
      .catch((error: unknown) => this.log?.warn('listen sessions not kept alive', errorFields(error)));
  }

  private async relay(payload: string | undefined): Promise<void> {
    try {
      const { key, webhookId } = JSON.parse(payload ?? '{}') as { key?: string; webhookId?: number };
      const held = webhookId === undefined ? undefined : this.held.get(webhookId);
      if (!held || !key || webhookId === undefined) return;
      const request = await listenRepository.request(this.contexts.forSystem(held.companyId, 'listen'), key, webhookId);
      if (request) held.push({ key, ...(request as Omit<ListenRequest, 'key'>) });
    } catch (error) {
      this.log?.warn('listen delivery not relayed', errorFields(error));
    }
  }
}
