import type { RequestContext } from '../context/request-context.js';
import { UnprocessableError, ValidationError } from '../kernel/errors.js';
import { E164, Rules, message } from '../kernel/validation.js';
import { pageOf, pageWindow, type Page } from '../db/reads.js';
import { smsEventData, smsRecord, type SmsRecord } from './sms.records.js';
import { phoneNumberRepository } from '../repositories/phone-number.repository.js';
import { smsRepository } from '../repositories/sms.repository.js';
import type { SmsReceived, SmsStatusChanged } from '../telco/callbacks.js';
import { DIRECTIONS, SMS_PROGRESS } from '../kernel/vocabulary.js';
import type { TelcoService } from './telco.service.js';
import { contactFields, type ContactService } from './contact.service.js';
import type { DoNotCallService } from './do-not-call.service.js';
import { BOUNDS } from '../kernel/bounds.js';

// SMS (docs/design.md §5, "Event sources"): sent through the provider by a
// user, their fate reported by the provider's status callbacks (sms.sent once
// it is sent or delivered, sms.failed once it failed or was undelivered), and
// messages received from the provider (sms.received, and sms.replied when the
// company sent to that number within the last 7 days).

const REPLY_WINDOW_MS = 7 * 86_400_000;

export class SmsService {
  constructor(
    private readonly telco: TelcoService,
    private readonly contacts: ContactService,
    private readonly doNotCall: DoNotCallService,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Sends from `from` (one of the company's numbers; default: its first) to `to`. */
  async send(ctx: RequestContext, input: { to: string; body: string; from?: string | null }): Promise<SmsRecord> {
    const rules = new Rules()
      .required('to', input.to)
      .required('body', input.body)
      .maxChars('body', input.body, BOUNDS.sms.body.maxLength);
    if (!rules.has('to') && !E164.test(input.to)) rules.add('to', message.e164('to'));
    if (input.from && !E164.test(input.from)) rules.add('from', message.e164('from'));
    rules.check();
    // Its owner texted a stop word: nothing more is sent to it until they text a start word (as carriers refuse).
    if (await this.doNotCall.optedOutBySms(ctx, input.to))
      throw ValidationError.field(
        'to',
        `The recipient ${input.to} opted out by texting STOP; a message can be sent again once they text START.`,
      );
    const number = await phoneNumberRepository.sender(ctx, input.from ?? undefined);
    if (!number) {
      if (input.from) throw ValidationError.field('from', "The from field must be one of the company's phone numbers.");
      throw new UnprocessableError('The company has no phone number to send from.');
    }
    const person = await this.contacts.findOrCreate(ctx, input.to);
    const sent = await this.telco.sendMessage(ctx, number.phoneNo, input.to, input.body);
    const now = this.clock();
    const recorded = await smsRepository.insert(ctx, {
      contactId: person.id,
      providerMessageSid: sent.sid,
      direction: 'outbound',
      fromNumber: number.phoneNo,
      toNumber: input.to,
      body: input.body,
      status: sent.status in SMS_PROGRESS ? sent.status : 'queued',
      inReplyTo: null,
      at: now,
    });
    if (!recorded) throw new Error(`The provider returned a message id already recorded: ${sent.sid}`);
    return smsRecord(recorded);
  }

  async list(
    ctx: RequestContext,
    args: { direction?: string | null; page?: number | null; perPage?: number | null },
  ): Promise<Page<SmsRecord>> {
    new Rules().oneOf('direction', args.direction ?? undefined, DIRECTIONS).check();
    const window = pageWindow(args);
    const [messages, total] = await smsRepository.page(ctx, args.direction, window);
    return pageOf(messages.map(smsRecord), total, window);
  }

  /** The provider's status callback for a message the company sent. */
  async statusChanged(ctx: RequestContext, report: SmsStatusChanged): Promise<void> {
    const sms = await smsRepository.outboundLocked(ctx, report.messageSid);
    // A message this service did not send (or another company's): nothing to record.
    if (!sms) return;
    const row = smsRecord(sms);
    const before = SMS_PROGRESS[row.status] ?? 3;
    const after = SMS_PROGRESS[report.status];
    const failed = report.status === 'failed' || report.status === 'undelivered';
    const wasFailed = row.status === 'failed' || row.status === 'undelivered';
    // Forward only; delivered after sent is forward, and a failure after delivery is the provider's last word too.
    if (after < before || (after === before && (report.status === row.status || !failed || wasFailed))) return;
    const errorCode = failed ? (report.errorCode ?? null) : row.errorCode;
    Object.assign(sms, { status: report.status, errorCode });
    await smsRepository.save(ctx);
    const contact = contactFields(await this.contacts.findOrCreate(ctx, row.toNumber));
    if (failed) {
      if (!wasFailed)
        await ctx.events.record(
          'sms.failed',
          { ...smsEventData(row), status: report.status, error_code: errorCode },
          contact,
        );
    } else if (before < 2) {
      await ctx.events.record('sms.sent', { ...smsEventData(row), status: report.status }, contact);
    }
  }

  /** A message the provider received for one of the company's numbers. */
  async received(ctx: RequestContext, message: SmsReceived): Promise<void> {
    const now = this.clock();
    const person = await this.contacts.findOrCreate(ctx, message.from);
    // The company's latest message to this number in the reply window, if any.
    const earlier = await smsRepository.latestSent(
      ctx,
      message.from,
      message.to,
      new Date(now.getTime() - REPLY_WINDOW_MS),
    );
    const inserted = await smsRepository.insert(ctx, {
      contactId: person.id,
      providerMessageSid: message.messageSid,
      direction: 'inbound',
      fromNumber: message.from,
      toNumber: message.to,
      body: message.body,
      status: 'received',
      inReplyTo: earlier?.id ?? null,
      at: now,
    });
    // Already received (the provider retried): recorded once.
    if (!inserted) return;
    // A stop word puts the sender on the do-not-call list; a start word takes that opt-out off.
    await this.doNotCall.smsReceived(ctx, message.from, message.body);
    const row = smsRecord(inserted);
    const contact = contactFields(person);
    await ctx.events.record('sms.received', smsEventData(row), contact);
    if (earlier)
      await ctx.events.record(
        'sms.replied',
        { ...smsEventData(row), in_reply_to: earlier.providerMessageSid },
        contact,
      );
  }
}
