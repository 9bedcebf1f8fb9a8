import type { RequestContext } from '../context.js';
import { dbDate } from '../db/dates.js';
import { UnprocessableError, ValidationError } from '../errors.js';
import { E164, Rules, message } from '../validation.js';
import { pageOf, pageWindow, readPage, type Page } from '../db/pagination.js';
import { BODY_MAX, type SmsReceived, type SmsStatusChanged } from '../telco/callbacks.js';
import { SMS_PROGRESS } from '../vocabulary.js';
import type { TelcoService } from './telco.service.js';
import { contactFields, type ContactService } from './contact.service.js';

// SMS (DESIGN section 5, "Event sources"): sent through the provider by a
// user, their fate reported by the provider's status callbacks (sms.sent once
// it is sent or delivered, sms.failed once it failed or was undelivered), and
// messages received from the provider (sms.received, and sms.replied when the
// company sent to that number within the last 7 days).

const REPLY_WINDOW_MS = 7 * 86_400_000;

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
      [companyId, person.id, sent.sid, number.phone_no, input.to, input.body, sent.status in SMS_PROGRESS ? sent.status : 'queued', now, now],
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
  async statusChanged(ctx: RequestContext, report: SmsStatusChanged): Promise<void> {
    const companyId = await ctx.companyId();
    const [row] = await ctx.sql<SmsRow>("SELECT * FROM sms_messages WHERE provider_message_sid = ? AND company_id = ? AND direction = 'outbound' FOR UPDATE", [report.messageSid, companyId]);
    // A message this service did not send (or another company's): nothing to record.
    if (!row) return;
    const before = SMS_PROGRESS[row.status] ?? 3;
    const after = SMS_PROGRESS[report.status];
    const failed = report.status === 'failed' || report.status === 'undelivered';
    const wasFailed = row.status === 'failed' || row.status === 'undelivered';
    // Forward only; delivered after sent is forward, and a failure after delivery is the provider's last word too.
    if (after < before || (after === before && (report.status === row.status || !failed || wasFailed))) return;
    const errorCode = failed ? (report.errorCode ?? null) : row.error_code;
    await ctx.sql('UPDATE sms_messages SET status = ?, error_code = ?, updated_at = ? WHERE id = ?', [report.status, errorCode, this.clock(), row.id]);
    const contact = contactFields(await this.contacts.findOrCreate(ctx, row.to_number));
    if (failed) {
      if (!wasFailed) await ctx.events.record('sms.failed', { ...smsData(row), status: report.status, error_code: errorCode }, contact);
    } else if (before < 2) {
      await ctx.events.record('sms.sent', { ...smsData(row), status: report.status }, contact);
    }
  }

  /** A message the provider received for one of the company's numbers. */
  async received(ctx: RequestContext, message: SmsReceived): Promise<void> {
    const companyId = await ctx.companyId();
    const now = this.clock();
    const person = await this.contacts.findOrCreate(ctx, message.from);
    // The company's latest message to this number in the reply window, if any.
    const [earlier] = await ctx.sql<{ id: number; provider_message_sid: string }>(
      "SELECT id, provider_message_sid FROM sms_messages WHERE company_id = ? AND direction = 'outbound' AND to_number = ? AND from_number = ? AND created_at > ? ORDER BY created_at DESC, id DESC LIMIT 1",
      [companyId, message.from, message.to, new Date(now.getTime() - REPLY_WINDOW_MS)],
    );
    const [row] = await ctx.sql<SmsRow>(
      `INSERT INTO sms_messages (company_id, contact_id, provider_message_sid, direction, from_number, to_number, body, status, in_reply_to_id, created_at, updated_at)
       VALUES (?, ?, ?, 'inbound', ?, ?, ?, 'received', ?, ?, ?) ON CONFLICT (provider_message_sid) DO NOTHING RETURNING *`,
      [companyId, person.id, message.messageSid, message.from, message.to, message.body, earlier?.id ?? null, now, now],
    );
    // Already received (the provider retried): recorded once.
    if (!row) return;
    const contact = contactFields(person);
    await ctx.events.record('sms.received', smsData(row), contact);
    if (earlier) await ctx.events.record('sms.replied', { ...smsData(row), in_reply_to: earlier.provider_message_sid }, contact);
  }
}
