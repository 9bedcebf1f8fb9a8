import { Entity, Property, Unique } from '@mikro-orm/core';
import { CompanyOwned } from './company-owned.js';

/** An A2P messaging campaign imported from the provider account. */
@Entity({ tableName: 'messaging_campaigns' })
@Unique({ properties: ['company', 'messagingServiceSid'] })
export class MessagingCampaign extends CompanyOwned {
  @Property({ length: 64 })
  messagingServiceSid!: string;

  @Property({ length: 64, nullable: true })
  campaignSid?: string | null;

  @Property({ length: 255 })
  name!: string;

  @Property({ length: 32 })
  status!: string;

  @Property({ length: 64 })
  useCase!: string;
}
