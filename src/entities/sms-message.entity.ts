import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Index, ManyToOne, Property, type Rel } from '@mikro-orm/core';
import { Contact } from './contact.entity.js';

// A text message sent or received. The partial index of outbound messages by recipient (the STOP and reply lookups)
// is written in Migration20261123021500_sms and declared here by name and statement.

@Entity({ tableName: 'sms_messages' })
@Index({ name: 'sms_messages_company_id_created_at_index', properties: ['company', 'createdAt'] })
@Index({
  name: 'sms_messages_company_id_to_number_created_at_index',
  expression:
    'create index "sms_messages_company_id_to_number_created_at_index" on "sms_messages" ' +
    '("company_id", "to_number", "created_at") where "direction" = \'outbound\'',
})
export class SmsMessage extends CompanyOwned {
  @Property({ type: 'string', length: 64, unique: 'sms_messages_provider_message_sid_unique' })
  providerMessageSid!: string;

  /** inbound or outbound (kernel/vocabulary.ts DIRECTIONS). */
  @Property({ type: 'string', length: 8 })
  direction!: string;

  @Property({ type: 'string', length: 20 })
  fromNumber!: string;

  @Property({ type: 'string', length: 20 })
  toNumber!: string;

  @Property({ type: 'text' })
  body!: string;

  /** kernel/vocabulary.ts MESSAGE_STATUSES. */
  @Property({ type: 'string', length: 16 })
  status!: string;

  @Property({ type: 'string', length: 16, nullable: true })
  errorCode: string | null = null;

  @ManyToOne(() => SmsMessage, { nullable: true, deleteRule: 'set null', updateRule: 'cascade', index: false })
  inReplyTo?: Rel<SmsMessage> | null;

  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null', updateRule: 'cascade', index: false })
  contact?: Rel<Contact> | null;
}
