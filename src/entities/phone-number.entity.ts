import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Enum, Index, ManyToOne, type Opt, Property, type Rel } from '@mikro-orm/core';
import { PhoneStatus, UseFor } from '../kernel/vocabulary.js';
import { Agent } from './agent.entity.js';

// A company's phone number at the provider. The trigram index of the number (the list's search) is an operator-class
// index written in Migration20261123101500_list_indexes, declared here by name and statement.

@Entity({ tableName: 'phone_numbers' })
@Index({ name: 'phone_numbers_company_id_created_at_id_index', properties: ['company', 'createdAt', 'id'] })
@Index({
  name: 'phone_numbers_company_id_use_for_created_at_id_index',
  properties: ['company', 'useFor', 'createdAt', 'id'],
})
@Index({
  name: 'phone_numbers_phone_no_trgm_index',
  expression: 'create index "phone_numbers_phone_no_trgm_index" on "phone_numbers" using gin ("phone_no" gin_trgm_ops)',
})
export class PhoneNumber extends CompanyOwned {
  @Property({ type: 'string', length: 20, unique: 'phone_numbers_phone_no_unique' })
  phoneNo!: string;

  @Property({ type: 'string', length: 32, default: 'telco' })
  provider: Opt<string> = 'telco';

  @Property({ type: 'string', length: 64, nullable: true, unique: 'phone_numbers_provider_sid_unique' })
  providerSid: string | null = null;

  @Enum({ items: () => PhoneStatus, default: PhoneStatus.Unverified })
  status: Opt<PhoneStatus> = PhoneStatus.Unverified;

  @Enum({ items: () => UseFor, default: UseFor.both })
  useFor: Opt<UseFor> = UseFor.both;

  @Property({ type: 'boolean', default: true })
  dialable: Opt<boolean> = true;

  @Property({ type: 'boolean', default: false })
  aiActive: Opt<boolean> = false;

  /** local, mobile or tollfree (kernel/vocabulary.ts PHONE_TYPES). */
  @Property({ type: 'string', length: 32, default: 'local' })
  phoneType: Opt<string> = 'local';

  @Property({ type: 'string', length: 255, nullable: true })
  phoneTitle: string | null = null;

  @Property({ type: 'boolean', default: false })
  hasSpamProtection: Opt<boolean> = false;

  /** 10DLC registration: Yes or No (kernel/vocabulary.ts TENDLC_ANSWERS). */
  @Property({ type: 'string', length: 3, nullable: true })
  tendlc: string | null = null;

  @ManyToOne(() => Agent, { nullable: true, deleteRule: 'set null', updateRule: 'cascade', index: false })
  chatbotAgent: Rel<Agent> | null = null;

  @Property({ type: 'string', length: 64, nullable: true })
  messagingServiceSid: string | null = null;
}
