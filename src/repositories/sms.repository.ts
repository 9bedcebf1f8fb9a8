import { LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { type PageWindow, readPage } from '../db/reads.js';
import { SmsMessage } from '../entities/sms-message.entity.js';
import { type Listed, listed } from './common.js';

// A company's text messages: the one module that knows sms_messages. Its list is one statement (a page of rows); a
// message is recorded by an insert that ignores a repeated provider id (a callback sent twice) instead of failing the
// unit of work's transaction.

/** What a message is read with. */
export type SmsListed =
  | 'id'
  | 'providerMessageSid'
  | 'direction'
  | 'fromNumber'
  | 'toNumber'
  | 'body'
  | 'status'
  | 'errorCode'
  | 'createdAt';
export type SmsRow = Listed<SmsMessage, SmsListed>;

const COLUMNS = 'id, provider_message_sid, direction, from_number, to_number, body, status, error_code, created_at';

export interface NewSms {
  contactId: number;
  providerMessageSid: string;
  direction: 'outbound' | 'inbound';
  fromNumber: string;
  toNumber: string;
  body: string;
  status: string;
  inReplyTo: number | null;
  at: Date;
}

export const smsRepository = {
  /** A page of the company's messages, newest first, of one direction or both. */
  async page(
    ctx: RequestContext,
    direction: string | null | undefined,
    window: PageWindow,
  ): Promise<[SmsRow[], number]> {
    const params: unknown[] = [await ctx.companyId()];
    if (direction) params.push(direction);
    const { rows, total } = await readPage<Record<string, unknown>>(
      ctx,
      {
        select: COLUMNS,
        from: 'sms_messages',
        where: direction ? 'company_id = $1 AND direction = $2' : 'company_id = $1',
        orderBy: 'created_at DESC, id DESC',
        params,
      },
      window,
    );
    return [listed(ctx, SmsMessage, rows), total];
  },

  /** Records a message; undefined when one with this provider id exists already (a repeated callback). */
  async insert(ctx: RequestContext, m: NewSms): Promise<SmsMessage | undefined> {
    const result = await ctx.em
      .createQueryBuilder(SmsMessage)
      .insert({
        company: await ctx.companyId(),
        contact: m.contactId,
        providerMessageSid: m.providerMessageSid,
        direction: m.direction,
        fromNumber: m.fromNumber,
        toNumber: m.toNumber,
        body: m.body,
        status: m.status,
        inReplyTo: m.inReplyTo,
        createdAt: m.at,
        updatedAt: m.at,
      })
      .onConflict('providerMessageSid')
      .ignore()
      .execute('run');
    return result.affectedRows === 0 ? undefined : ctx.em.findOneOrFail(SmsMessage, result.insertId as number);
  },

  /** A message the company sent, by its provider id, locked until the unit of work ends (a status change). */
  async outboundLocked(ctx: RequestContext, providerMessageSid: string): Promise<SmsMessage | null> {
    return ctx.em.findOne(
      SmsMessage,
      { providerMessageSid, company: await ctx.companyId(), direction: 'outbound' },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
  },

  /** The company's latest message from `ours` to `to` since `since`, if any. */
  async latestSent(ctx: RequestContext, to: string, ours: string, since: Date): Promise<SmsMessage | null> {
    return ctx.em.findOne(
      SmsMessage,
      {
        company: await ctx.companyId(),
        direction: 'outbound',
        toNumber: to,
        fromNumber: ours,
        createdAt: { $gt: since },
      },
      { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] },
    );
  },

  /** Writes what was changed on the messages this unit of work holds. */
  save(ctx: RequestContext): Promise<void> {
    return ctx.em.flush();
  },
};
