import type { RequestContext } from '../context/request-context.js';
import { dbDate, readPage, type PageWindow } from '../db/reads.js';

// The SMS aggregate's statements and its one record shape: every read and
// write of sms_messages is here, and each row becomes an SmsRecord once
// (the shape the GraphQL SmsMessage type serves, field for field).

export interface SmsRecord {
  /** Our row id (not served). */
  rowId: number;
  /** The provider's message id (SM...). */
  id: string;
  direction: string;
  fromNumber: string;
  toNumber: string;
  body: string;
  status: string;
  errorCode: string | null;
  createdAt: Date;
}

interface SmsRow {
  id: number;
  provider_message_sid: string;
  direction: string;
  from_number: string;
  to_number: string;
  body: string;
  status: string;
  error_code: string | null;
  created_at: Date | string;
}

const COLUMNS = 'id, provider_message_sid, direction, from_number, to_number, body, status, error_code, created_at';

const record = (row: SmsRow): SmsRecord => ({
  rowId: row.id,
  id: row.provider_message_sid,
  direction: row.direction,
  fromNumber: row.from_number,
  toNumber: row.to_number,
  body: row.body,
  status: row.status,
  errorCode: row.error_code,
  createdAt: dbDate(row.created_at),
});

/** The data of an sms.* event about this message. */
export const smsEventData = (m: SmsRecord) => ({
  message_id: m.id,
  from_number: m.fromNumber,
  to_number: m.toNumber,
  body: m.body,
});

export interface NewSms {
  companyId: number;
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

export const smsRecords = {
  /** A page of the company's messages, newest first, of one direction or both. */
  async page(ctx: RequestContext, companyId: number, direction: string | null | undefined, window: PageWindow) {
    const where = direction ? 'company_id = $1 AND direction = $2' : 'company_id = $1';
    const params = direction ? [companyId, direction] : [companyId];
    const { rows, total } = await readPage<SmsRow>(
      ctx,
      { select: COLUMNS, from: 'sms_messages', where, orderBy: 'created_at DESC, id DESC', params },
      window,
    );
    return { records: rows.map(record), total };
  },

  /** Records a message; undefined when one with this provider id exists already (a repeated callback). */
  async insert(ctx: RequestContext, m: NewSms): Promise<SmsRecord | undefined> {
    const [row] = await ctx.sql<SmsRow>(
      `INSERT INTO sms_messages (company_id, contact_id, provider_message_sid, direction, from_number, to_number,
        body, status, in_reply_to_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (provider_message_sid) DO NOTHING RETURNING ${COLUMNS}`,
      [
        m.companyId,
        m.contactId,
        m.providerMessageSid,
        m.direction,
        m.fromNumber,
        m.toNumber,
        m.body,
        m.status,
        m.inReplyTo,
        m.at,
        m.at,
      ],
    );
    return row && record(row);
  },

  /** A message the company sent, by its provider id, locked for a status change. */
  async outboundForUpdate(
    ctx: RequestContext,
    companyId: number,
    providerMessageSid: string,
  ): Promise<SmsRecord | undefined> {
    const [row] = await ctx.sql<SmsRow>(
      `SELECT ${COLUMNS} FROM sms_messages WHERE provider_message_sid = $1 AND company_id = $2 AND direction = 'outbound' FOR UPDATE`,
      [providerMessageSid, companyId],
    );
    return row && record(row);
  },

  async setStatus(
    ctx: RequestContext,
    rowId: number,
    status: string,
    errorCode: string | null,
    at: Date,
  ): Promise<void> {
    await ctx.sql('UPDATE sms_messages SET status = $1, error_code = $2, updated_at = $3 WHERE id = $4', [
      status,
      errorCode,
      at,
      rowId,
    ]);
  },

  /** The company's latest message from `ours` to `to` since `since`, if any. */
  async latestSent(
    ctx: RequestContext,
    companyId: number,
    to: string,
    ours: string,
    since: Date,
  ): Promise<SmsRecord | undefined> {
    const [row] = await ctx.sql<SmsRow>(
      `SELECT ${COLUMNS} FROM sms_messages WHERE company_id = $1 AND direction = 'outbound' AND to_number = $2 AND from_number = $3 AND created_at > $4
       ORDER BY created_at DESC, id DESC LIMIT 1`,
      [companyId, to, ours, since],
    );
    return row && record(row);
  },
};
