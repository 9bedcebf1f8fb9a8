import type { RequestContext } from '../context.js';
import { dbDate } from '../db/dates.js';
import { UnprocessableError, ValidationError } from '../errors.js';
import { E164, Rules, message } from '../validation.js';
import { pageOf, pageWindow, readPage, type Page } from '../db/pagination.js';
import type { TelcoService } from './telco.service.js';
import { contactFields, type ContactService } from './contact.service.js';

// SMS (DESIGN section 5, "Event sources"): sent through the provider by a
// user, their fate reported by the provider's status callbacks (sms.sent once
// it is sent or delivered, sms.failed once it failed or was undelivered), and
// messages received from the provider (sms.received, and sms.replied when the
// company sent to that number within the last 7 days).

const MESSAGE_SID = /^SM[0-9a-f]{32}$/;
const REPLY_WINDOW_MS = 7 * 86_400_000;
const BODY_MAX = 1600;

/** How far along an outbound message is; failed and undelivered are as final as delivered. */
const PROGRESS: Record<string, number> = { accepted: 1, queued: 1, sending: 1, sent: 2, delivered: 3, failed: 3, undelivered: 3 };

export interface SmsRow {
  id: number;
  provider_message_sid: string;
  direction: string;
  from_number: string;
  to_number: string;
  body: string;
  status: string;
  error_code: string | null;
  in_reply_to_id: number | null;
  created_at: Date;
}

const smsData = (m: Pick<SmsRow, 'provider_message_sid' | 'from_number' | 'to_number' | 'body'>) => ({
  message_id: m.provider_message_sid,
  from_number: m.from_number,
  to_number: m.to_number,
  body: m.body,
});

export class SmsService {
  constructor(
    private readonly telco: TelcoService,
    private readonly contacts: ContactService,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Sends from `from` (one of the company's numbers; default: its first) to `to`. */
  async send(ctx: RequestContext, input: { to: string; body: string; from?: string | null }): Promise<SmsRow> {
    const rules = new Rules().required('to', input.to).required('body', input.body).maxChars('body', input.body, BODY_MAX);
    if (!rules.has('to') && !E164.test(input.to)) rules.add('to', message.e164('to'));
    if (input.from && !E164.test(input.from)) rules.add('from', message.e164('from'));
    rules.check();
    const companyId = await ctx.companyId();
    const [number] = await ctx.sql<{ phone_no: string }>(
      `SELECT phone_no FROM phone_numbers WHERE company_id = ? ${input.from ? 'AND phone_no = ?' : ''} ORDER BY id LIMIT 1`,
      input.from ? [companyId, input.from] : [companyId],
    );
    if (!number) {
      if (input.from) throw ValidationError.field('from', 'The from field must be one of the company\'s phone numbers.');
      throw new UnprocessableError('The company has no phone number to send from.');
    }
    const person = await this.contacts.findOrCreate(ctx, input.to);
    const sent = await this.telco.sendMessage(ctx, number.phone_no, input.to, input.body);
    const now = this.clock();
    const [row] = await ctx.sql<SmsRow>(
      `INSERT INTO sms_messages (company_id, contact_id, provider_message_sid, direction, from_number, to_number, body, status, created_at, updated_at)
       VALUES (?, ?, ?, 'outbound', ?, ?, ?, ?, ?, ?) RETURNING *`,
      [companyId, person.id, sent.sid, number.phone_no, input.to, input.body, sent.status in PROGRESS ? sent.status : 'queued', now, now],
    );
    return { ...row, created_at: dbDate(row.created_at) };
  }

  async list(ctx: RequestContext, args: { direction?: string | null; page?: number | null; perPage?: number | null }): Promise<Page<SmsRow>> {
    const rules = new Rules().oneOf('direction', args.direction ?? undefined, ['inbound', 'outbound']);
    rules.check();
    const window = pageWindow(args);
    const companyId = await ctx.companyId();
    const where = args.direction ? 'company_id = $1 AND direction = $2' : 'company_id = $1';
    const params = args.direction ? [companyId, args.direction] : [companyId];
    const { rows, total } = await readPage<SmsRow>(ctx, { select: '*', from: 'sms_messages', where, orderBy: 'created_at DESC, id DESC', params }, window);
    return pageOf(rows.map((r) => ({ ...r, created_at: dbDate(r.created_at) })), total, window);
  }

  /** The provider's status callback for a message the company sent. */
  async status(ctx: RequestContext, params: Record<string, string>): Promise<void> {
    const errors: Record<string, string[]> = {};
    if (!MESSAGE_SID.test(params.MessageSid ?? '')) errors.MessageSid = ['The MessageSid parameter must be SM followed by 32 hexadecimal digits.'];
    if (!((params.MessageStatus ?? '') in PROGRESS)) errors.MessageStatus = [`The MessageStatus parameter must be one of ${Object.keys(PROGRESS).join(', ')}.`];
    if (params.ErrorCode !== undefined && !/^\d{1,10}$/.test(params.ErrorCode)) errors.ErrorCode = ['The ErrorCode parameter must be a number of at most 10 digits.'];
    for (const name of ['From', 'To']) if (params[name] !== undefined && !E164.test(params[name])) errors[name] = [`The ${name} parameter must be an E.164 number.`];
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const companyId = await ctx.companyId();
    const [row] = await ctx.sql<SmsRow>("SELECT * FROM sms_messages WHERE provider_message_sid = ? AND company_id = ? AND direction = 'outbound' FOR UPDATE", [params.MessageSid, companyId]);
    // A message this service did not send (or another company's): nothing to record.
    if (!row) return;
    const before = PROGRESS[row.status] ?? 3;
    const after = PROGRESS[params.MessageStatus];
    const failed = params.MessageStatus === 'failed' || params.MessageStatus === 'undelivered';
    const wasFailed = row.status === 'failed' || row.status === 'undelivered';
    // Forward only; delivered after sent is forward, and a failure after delivery is the provider's last word too.
    if (after < before || (after === before && (params.MessageStatus === row.status || !failed || wasFailed))) return;
    const errorCode = failed ? (params.ErrorCode || null) : row.error_code;
    await ctx.sql('UPDATE sms_messages SET status = ?, error_code = ?, updated_at = ? WHERE id = ?', [params.MessageStatus, errorCode, this.clock(), row.id]);
    const contact = contactFields(await this.contacts.findOrCreate(ctx, row.to_number));
    if (failed) {
      if (!wasFailed) await ctx.events.record('sms.failed', { ...smsData(row), status: params.MessageStatus, error_code: errorCode }, contact);
    } else if (before < 2) {
      await ctx.events.record('sms.sent', { ...smsData(row), status: params.MessageStatus }, contact);
    }
  }

  /** A message the provider received for one of the company's numbers. */
  async inbound(ctx: RequestContext, params: Record<string, string>): Promise<void> {
    const rules = new Rules();
    if (!MESSAGE_SID.test(params.MessageSid ?? '')) rules.add('MessageSid', 'The MessageSid parameter must be SM followed by 32 hexadecimal digits.');
    if (!E164.test(params.From ?? '')) rules.add('From', 'The From parameter must be an E.164 number.');
    if (!E164.test(params.To ?? '')) rules.add('To', 'The To parameter must be an E.164 number.');
    if ((params.Body ?? '').length > BODY_MAX) rules.add('Body', message.maxChars('Body', BODY_MAX));
    rules.check();
    const companyId = await ctx.companyId();
    const now = this.clock();
    const person = await this.contacts.findOrCreate(ctx, params.From);
    // The company's latest message to this number in the reply window, if any.
    const [earlier] = await ctx.sql<{ id: number; provider_message_sid: string }>(
      "SELECT id, provider_message_sid FROM sms_messages WHERE company_id = ? AND direction = 'outbound' AND to_number = ? AND from_number = ? AND created_at > ? ORDER BY created_at DESC, id DESC LIMIT 1",
      [companyId, params.From, params.To, new Date(now.getTime() - REPLY_WINDOW_MS)],
    );
    const [row] = await ctx.sql<SmsRow>(
      `INSERT INTO sms_messages (company_id, contact_id, provider_message_sid, direction, from_number, to_number, body, status, in_reply_to_id, created_at, updated_at)
       VALUES (?, ?, ?, 'inbound', ?, ?, ?, 'received', ?, ?, ?) ON CONFLICT (provider_message_sid) DO NOTHING RETURNING *`,
      [companyId, person.id, params.MessageSid, params.From, params.To, params.Body ?? '', earlier?.id ?? null, now, now],
    );
    // Already received (the provider retried): recorded once.
    if (!row) return;
    const contact = contactFields(person);
    await ctx.events.record('sms.received', smsData(row), contact);
    if (earlier) await ctx.events.record('sms.replied', { ...smsData(row), in_reply_to: earlier.provider_message_sid }, contact);
  }
}
