import type { SmsRow } from '../repositories/sms.repository.js';

// The SMS aggregate's one record shape: each message becomes an SmsRecord once (the shape the GraphQL SmsMessage
// type serves, field for field); its reads and writes are repositories/sms.repository.ts.

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

/** A message as the API serves it: its provider id as its id (one mapping, from the entity or its listed row). */
export const smsRecord = (m: SmsRow): SmsRecord => ({
  rowId: m.id,
  id: m.providerMessageSid,
  direction: m.direction,
  fromNumber: m.fromNumber,
  toNumber: m.toNumber,
  body: m.body,
  status: m.status,
  errorCode: m.errorCode,
  createdAt: m.createdAt,
});

/** The data of an sms.* event about this message. */
export const smsEventData = (m: SmsRecord) => ({
  message_id: m.id,
  from_number: m.fromNumber,
  to_number: m.toNumber,
  body: m.body,
});
