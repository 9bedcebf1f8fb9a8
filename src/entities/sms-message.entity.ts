import { Entity, Index, ManyToOne, Property, type Rel } from '@mikro-orm/core';
import { CompanyOwned } from './company-owned.js';
import { Contact } from './contact.entity.js';

// Kept for the schema and its migrations; read and written with plain statements in services/sms.records.ts.
/** One SMS, sent through the provider or received from it. */
@Entity({ tableName: 'sms_messages' })
@Index({ properties: ['company', 'createdAt'] })
// The company's latest message to a number (sms.replied looks it up for every inbound message).
@Index({
  name: 'sms_messages_company_id_to_number_created_at_index',
  expression:
    `create index "sms_messages_company_id_to_number_created_at_index" on "sms_messages" ("company_id", ` +
    `"to_number", "created_at") where "direction" = 'outbound'`,
})
export class SmsMessage extends CompanyOwned {
  /** The provider's id (SM...): a callback about it is found by this. */
  @Property({ length: 64, unique: true })
  providerMessageSid!: string;

  /** outbound or inbound */
  @Property({ length: 8 })
  direction!: string;

  @Property({ length: 20 })
  fromNumber!: string;

  @Property({ length: 20 })
  toNumber!: string;

  @Property({ type: 'text' })
  body!: string;

  /** queued, sent, delivered, failed, undelivered (outbound); received (inbound) */
  @Property({ length: 16 })
  status!: string;

  @Property({ length: 16, nullable: true })
  errorCode?: string | null;

  /** The other party, found or created by phone number. */
  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null' })
  contact?: Rel<Contact> | null;

  /** For a reply: the company's message it answers. */
  @ManyToOne(() => SmsMessage, { nullable: true, deleteRule: 'set null' })
  inReplyTo?: Rel<SmsMessage> | null;
}
