import type { RequestContext } from '../context.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { Webhook, type DeliveryStatus } from '../entities/index.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { EVENT_NAMES, eventDoc, isEventType } from '../events/catalog.js';
import { dbDate } from '../db/dates.js';
import type { IdCodec } from '../ids.js';
import { findOwned } from '../services/lookup.js';
import { findPage, likePattern, pageWindow, pageOf, NEWEST_FIRST, type Page, type PageArgs } from '../services/pagination.js';
import { LIMITS, Rules, message } from '../validation.js';
import { urlProblem, type DestinationPolicy } from './destination.js';
import type { WebhookOutbox } from './outbox.js';
import { isFormField, LIST_SELECTIONS, newDeliveryId, payloadText, selectContact, selectionOf, SELECTION_NAMES } from './payload.js';
import { newSecret } from './signing.js';

// Webhook configuration, the delivery log, and the manual sends (test,
// resend, recover) of DESIGN section 5.

export const TITLE_MAX = 255;
export const URL_MAX = 2048;
export const RECOVER_WINDOW_DAYS = 14;

/** The highest rate limit a webhook may set, in deliveries per second. */
export const RATE_LIMIT_MAX = 1000;

export interface WebhookInput {
  title?: string | null;
  url?: string | null;
  method?: string | null;
  listSelection?: string | null;
  formData?: string[] | null;
  events?: string[] | null;
  active?: boolean | null;
  rateLimit?: number | null;
}

export interface WebhookListArgs extends PageArgs {
  search?: string | null;
  event?: string | null;
  active?: boolean | null;
}

export interface DeliveryRow {
  id: string;
  webhook_id: number;
  event: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  created_at: Date;
  payload?: string;
}

export interface AttemptRow {
  number: number;
  trigger: string;
  attempted_at: Date;
  status_code: number | null;
  duration_ms: number | null;
  response_body: string | null;
  error: string | null;
}

export interface WebhookSecret {
  secret: string;
  previousSecretExpiresAt: Date | null;
}

const DELIVERY_COLUMNS = 'id, webhook_id, event, status, attempt_count, next_attempt_at, last_attempt_at, last_status_code, created_at';
const STATUSES: DeliveryStatus[] = ['pending', 'succeeded', 'failed', 'cancelled'];

export class WebhookService {
  constructor(
    private readonly ids: IdCodec,
    private readonly box: SecretBox,
    private readonly outbox: WebhookOutbox,
    private readonly settings: { destinations: DestinationPolicy; rotationGraceMs: number; startConcurrency: number },
  ) {}

  async list(ctx: RequestContext, args: WebhookListArgs): Promise<Page<Webhook>> {
    const window = pageWindow(args);
    new Rules().oneOf('event', args.event, EVENT_NAMES).check();
    const where: Record<string, unknown> = { company: await ctx.companyId() };
    if (args.search) {
      const pattern = likePattern(args.search);
      where.$or = [{ title: { $ilike: pattern } }, { url: { $ilike: pattern } }];
    }
    if (args.active !== undefined && args.active !== null) where.active = args.active;
    if (args.event) where.events = { $contains: [args.event] };
    return findPage(ctx.em, Webhook, where, window, { orderBy: NEWEST_FIRST });
  }

  /** The endpoint's concurrency now (the starting one until it first adapts). */
  concurrencyOf(webhook: Webhook): number {
    return webhook.concurrency ?? this.settings.startConcurrency;
  }

  find(ctx: RequestContext, rawId: string): Promise<Webhook> {
    return findOwned(ctx, this.ids, Webhook, rawId, 'webhook', 'Webhook');
  }

  /** Creates a webhook with a new secret; the secret is returned this once (and by the reveal route). */
  async create(ctx: RequestContext, input: WebhookInput): Promise<{ webhook: Webhook; secret: string }> {
    const fields = this.check(input, true);
    const secret = newSecret();
    const webhook = ctx.em.create(Webhook, {
      company: await ctx.companyId(),
      title: fields.title!,
      url: fields.url!,
      listSelection: fields.listSelection!,
      formData: fields.formData!,
      events: fields.events!,
      active: input.active ?? true,
      rateLimit: fields.rateLimit ?? null,
      secretSealed: this.box.seal(secret),
    });
    await ctx.em.flush();
    return { webhook, secret };
  }

  async update(ctx: RequestContext, rawId: string, input: WebhookInput): Promise<Webhook> {
    const webhook = await this.find(ctx, rawId);
    const fields = this.check(input, false, webhook);
    if (fields.title !== undefined) webhook.title = fields.title;
    if (fields.url !== undefined) webhook.url = fields.url;
    if (fields.listSelection !== undefined) webhook.listSelection = fields.listSelection;
    if (fields.formData !== undefined) webhook.formData = fields.formData;
    if (fields.events !== undefined) webhook.events = fields.events;
    if (fields.rateLimit !== undefined && fields.rateLimit !== webhook.rateLimit) {
      // A new limit starts with a full bucket.
      webhook.rateLimit = fields.rateLimit;
      webhook.rateTokens = null;
      webhook.rateCheckedAt = null;
    }
    if (input.active === true) {
      webhook.active = true;
      webhook.disabledReason = null;
      webhook.failingSince = null;
    } else if (input.active === false && webhook.active) {
      webhook.active = false;
      await this.cancelPending(ctx, webhook.id);
    }
    await ctx.em.flush();
    return webhook;
  }

  /** Deletes the webhook; its deliveries go with it (pending ones are never sent). */
  async delete(ctx: RequestContext, rawId: string): Promise<void> {
    const webhook = await this.find(ctx, rawId);
    await ctx.em.remove(webhook).flush();
  }

  async secret(ctx: RequestContext, rawId: string): Promise<WebhookSecret> {
    const webhook = await this.find(ctx, rawId);
    const inGrace = webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt.getTime() > Date.now();
    return { secret: this.box.open(webhook.secretSealed)!, previousSecretExpiresAt: inGrace ? webhook.previousSecretExpiresAt! : null };
  }

  /** A new secret; the old one keeps signing (as a second signature) for the grace period. */
  async rotateSecret(ctx: RequestContext, rawId: string): Promise<WebhookSecret> {
    const webhook = await this.find(ctx, rawId);
    const secret = newSecret();
    webhook.previousSecretSealed = webhook.secretSealed;
    webhook.previousSecretExpiresAt = new Date(Date.now() + this.settings.rotationGraceMs);
    webhook.secretSealed = this.box.seal(secret);
    await ctx.em.flush();
    return { secret, previousSecretExpiresAt: webhook.previousSecretExpiresAt };
  }

  /** Sends the documented example of an event (default: the webhook's first) now, as a delivery of its own. */
  async test(ctx: RequestContext, rawId: string, event?: string | null): Promise<DeliveryRow> {
    const webhook = await this.find(ctx, rawId);
    const name = event ?? webhook.events[0];
    if (!isEventType(name)) throw ValidationError.field('event', message.oneOf('event'));
    const doc = eventDoc(name);
    const { contact, ...data } = doc.example;
    const id = newDeliveryId();
    const due = new Date();
    const payload = payloadText({ event: name, occurredAt: due, webhookId: webhook.id, data, contact: selectContact(contact as Record<string, unknown> | null, webhook.formData) });
    await this.outbox.insert(ctx, [{ id, webhookId: webhook.id, companyId: webhook.company.id, event: name, payload, trigger: 'manual', due }]);
    return (await this.deliveryRows(ctx, 'd.id = ?', [id]))[0];
  }

  async deliveries(ctx: RequestContext, rawId: string, args: PageArgs & { status?: string | null; event?: string | null }): Promise<Page<DeliveryRow>> {
    const webhook = await this.find(ctx, rawId);
    new Rules().oneOf('status', args.status, STATUSES).oneOf('event', args.event, EVENT_NAMES).check();
    const window = pageWindow(args);
    const conditions = ['d.webhook_id = ?'];
    const params: unknown[] = [webhook.id];
    if (args.status) (conditions.push('d.status = ?'), params.push(args.status));
    if (args.event) (conditions.push('d.event = ?'), params.push(args.event));
    const where = conditions.join(' AND ');
    const [{ total }] = await ctx.sql<{ total: number }>(`SELECT count(*)::int AS total FROM webhook_deliveries d WHERE ${where}`, params);
    const records = await this.deliveryRows(ctx, where, params, `ORDER BY d.id DESC LIMIT ${window.perPage} OFFSET ${window.offset}`);
    return pageOf(records, total, window);
  }

  /** One delivery of the company, with its payload and every attempt. */
  async delivery(ctx: RequestContext, rawId: string): Promise<DeliveryRow & { payload: string; attempts: AttemptRow[] }> {
    const [row] = await this.deliveryRows(ctx, 'd.id = ? AND d.company_id = ?', [this.deliveryId(rawId), await ctx.companyId()], '', true);
    if (!row) throw new NotFoundError('Delivery');
    const attempts = await ctx.sql<AttemptRow>(
      'SELECT number, trigger, attempted_at, status_code, duration_ms, response_body, error FROM webhook_attempts WHERE delivery_id = ? ORDER BY number',
      [row.id],
    );
    return { ...row, payload: row.payload!, attempts: attempts.map((a) => ({ ...a, attempted_at: dbDate(a.attempted_at) })) };
  }

  /** Sends a finished delivery again now, with a fresh schedule of five attempts and the same id. */
  async resend(ctx: RequestContext, rawId: string): Promise<DeliveryRow> {
    const id = this.deliveryId(rawId);
    const [row] = await ctx.sql<{ status: string }>('SELECT status FROM webhook_deliveries WHERE id = ? AND company_id = ? FOR UPDATE', [id, await ctx.companyId()]);
    if (!row) throw new NotFoundError('Delivery');
    if (row.status === 'pending') throw new ConflictError('The delivery is still pending; it will be attempted on its schedule.');
    await this.restart(ctx, [id]);
    return (await this.deliveryRows(ctx, 'd.id = ?', [id]))[0];
  }

  /** Re-sends every failed delivery of the webhook created in [since, until] (at most 14 days). */
  async recover(ctx: RequestContext, rawId: string, since: string, until?: string | null): Promise<number> {
    const webhook = await this.find(ctx, rawId);
    const rules = new Rules().required('since', since);
    const from = since ? new Date(since) : undefined;
    const to = until ? new Date(until) : new Date();
    if (since && (!from || Number.isNaN(from.getTime()))) rules.add('since', 'The since field must be an ISO 8601 date-time.');
    if (until && Number.isNaN(to.getTime())) rules.add('until', 'The until field must be an ISO 8601 date-time.');
    rules.check();
    if (to.getTime() < from!.getTime()) throw ValidationError.field('until', 'The until field must be a date-time after since.');
    if (to.getTime() - from!.getTime() > RECOVER_WINDOW_DAYS * 86_400_000) throw ValidationError.field('since', `The recovery window must not be longer than ${RECOVER_WINDOW_DAYS} days.`);
    const rows = await ctx.sql<{ id: string }>(
      `SELECT id FROM webhook_deliveries WHERE webhook_id = ? AND status = 'failed' AND created_at >= ? AND created_at <= ? ORDER BY id FOR UPDATE`,
      [webhook.id, from, to],
    );
    await this.restart(ctx, rows.map((r) => r.id));
    return rows.length;
  }

  private async restart(ctx: RequestContext, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const due = new Date();
    await ctx.sql(
      `UPDATE webhook_deliveries SET status = 'pending', final_attempt = attempt_count + 5, next_attempt_at = ?, next_trigger = 'manual', in_flight_until = NULL, lease_token = NULL
       WHERE id IN (?)`,
      [due, ids],
    );
    await this.outbox.afterCommit(ctx, ids);
  }

  private async cancelPending(ctx: RequestContext, webhookId: number): Promise<void> {
    await ctx.sql(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending' AND lease_token IS NULL`, [webhookId]);
  }

  private deliveryId(raw: string): string {
    if (!/^msg_[0-9A-HJKMNP-TV-Z]{26}$/.test(raw)) throw new NotFoundError('Delivery');
    return raw;
  }

  private async deliveryRows(ctx: RequestContext, where: string, params: unknown[], tail = '', withPayload = false): Promise<DeliveryRow[]> {
    const rows = await ctx.sql<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS}${withPayload ? ', payload' : ''} FROM webhook_deliveries d WHERE ${where} ${tail}`, params);
    return rows.map((row) => ({
      ...row,
      next_attempt_at: dbDate(row.next_attempt_at),
      last_attempt_at: dbDate(row.last_attempt_at),
      created_at: dbDate(row.created_at),
    }));
  }

  /** The rules of every field given (all required ones on create); the list selection and form data agree. */
  private check(input: WebhookInput, creating: boolean, current?: Webhook): Partial<Pick<Webhook, 'title' | 'url' | 'listSelection' | 'formData' | 'events' | 'rateLimit'>> {
    const rules = new Rules();
    const out: Partial<Pick<Webhook, 'title' | 'url' | 'listSelection' | 'formData' | 'events' | 'rateLimit'>> = {};
    if (creating || input.title !== undefined) {
      rules.required('title', input.title).maxChars('title', input.title, TITLE_MAX);
      if (typeof input.title === 'string') out.title = input.title.trim();
    }
    if (creating || input.url !== undefined) {
      rules.required('url', input.url).maxChars('url', input.url, URL_MAX);
      const problem = typeof input.url === 'string' && input.url.trim() !== '' ? urlProblem(input.url.trim(), this.settings.destinations) : undefined;
      if (problem && !rules.has('url')) rules.add('url', problem);
      if (typeof input.url === 'string') out.url = input.url.trim();
    }
    if (input.method !== undefined && input.method !== null && input.method.toUpperCase() !== 'POST') rules.add('method', 'The method field must be POST.');
    if (creating || input.events !== undefined) {
      const events = input.events ?? [];
      if (events.length === 0) rules.add('events', message.required('events'));
      events.forEach((name, i) => {
        if (!isEventType(name)) rules.add(`events.${i}`, message.oneOf(`events.${i}`));
      });
      out.events = EVENT_NAMES.filter((name) => events.includes(name));
    }
    if (input.formData !== undefined && input.formData !== null) {
      if (input.formData.length > LIMITS.arrayItems) rules.add('formData', message.maxItems('formData', LIMITS.arrayItems));
      input.formData.forEach((name, i) => {
        if (!isFormField(name)) rules.add(`formData.${i}`, message.oneOf(`formData.${i}`));
      });
    }
    rules.oneOf('listSelection', input.listSelection, SELECTION_NAMES);
    if (input.rateLimit !== undefined) {
      if (input.rateLimit !== null && !(Number.isInteger(input.rateLimit) && input.rateLimit >= 1 && input.rateLimit <= RATE_LIMIT_MAX)) {
        rules.add('rateLimit', `The rate limit field must be a whole number of deliveries per second from 1 to ${RATE_LIMIT_MAX}, or null for none.`);
      } else out.rateLimit = input.rateLimit;
    }
    rules.check();
    const formData = input.formData ? [...new Set(input.formData)] : undefined;
    const selection = input.listSelection ?? undefined;
    if (selection && selection !== 'Custom' && formData && selectionOf(formData) !== selection) {
      throw ValidationError.field('listSelection', 'The list selection and the form data disagree: choose one, or give Custom with the form data.');
    }
    if (selection === 'Custom' && !formData && !current) throw ValidationError.field('formData', 'The form data field is required with the Custom list selection.');
    if (selection && selection !== 'Custom') {
      out.listSelection = selection;
      out.formData = [...LIST_SELECTIONS[selection]];
    } else if (formData) {
      out.formData = formData;
      out.listSelection = selection === 'Custom' ? 'Custom' : selectionOf(formData);
    } else if (selection === 'Custom') {
      out.listSelection = 'Custom';
    } else if (creating) {
      out.listSelection = 'Basic';
      out.formData = [...LIST_SELECTIONS.Basic];
    }
    return out;
  }
}
