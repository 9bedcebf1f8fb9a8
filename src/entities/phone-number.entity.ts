import { Entity, Enum, Index, ManyToOne, Property, type Opt, type Rel } from '@mikro-orm/core';
import { Agent } from './agent.entity.js';
import { CompanyOwned } from './company-owned.js';

import { PHONE_TYPES, PhoneStatus, UseFor } from '../kernel/vocabulary.js';

export { PHONE_TYPES, PhoneStatus, UseFor };

@Entity({ tableName: 'phone_numbers' })
@Index({ properties: ['company', 'createdAt', 'id'] })
@Index({ properties: ['company', 'useFor', 'createdAt', 'id'] })
@Index({
  name: 'phone_numbers_phone_no_trgm_index',
  expression: 'create index "phone_numbers_phone_no_trgm_index" on "phone_numbers" using gin ("phone_no" gin_trgm_ops)',
})
export class PhoneNumber extends CompanyOwned {
  /** E.164; a number belongs to one company at a time. */
  @Property({ length: 20, unique: true })
  phoneNo!: string;

  @Property({ length: 32, default: 'telco' })
  provider: Opt<string> = 'telco';

  /** The provider's id for the number. */
  @Property({ length: 64, nullable: true, unique: true })
  providerSid?: string | null;

  @Enum({ items: () => PhoneStatus, default: PhoneStatus.Unverified })
  status: Opt<PhoneStatus> = PhoneStatus.Unverified;

  @Enum({ items: () => UseFor, default: UseFor.both })
  useFor: Opt<UseFor> = UseFor.both;

  @Property({ default: true })
  dialable: Opt<boolean> = true;

  @Property({ default: false })
  aiActive: Opt<boolean> = false;

  @Property({ length: 32, default: 'local' })
  phoneType: Opt<string> = 'local';

  @Property({ length: 255, nullable: true })
  phoneTitle?: string | null;

  @Property({ default: false })
  hasSpamProtection: Opt<boolean> = false;

  /** 10DLC registration: Yes or No; null until set. */
  @Property({ length: 3, nullable: true })
  tendlc?: string | null;

  /** The AI agent that answers inbound messages on this number. */
  @ManyToOne(() => Agent, { nullable: true, deleteRule: 'set null' })
  chatbotAgent?: Rel<Agent> | null;

  @Property({ length: 64, nullable: true })
  messagingServiceSid?: string | null;
}
