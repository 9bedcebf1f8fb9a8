import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Property, Unique } from '@mikro-orm/core';

/** A company's A2P messaging campaign at the provider, one per messaging service. */
@Entity({ tableName: 'messaging_campaigns' })
@Unique({
  name: 'messaging_campaigns_company_id_messaging_service_sid_unique',
  properties: ['company', 'messagingServiceSid'],
})
export class MessagingCampaign extends CompanyOwned {
  @Property({ type: 'string', length: 64 })
  messagingServiceSid!: string;

  @Property({ type: 'string', length: 64, nullable: true })
  campaignSid: string | null = null;

  @Property({ type: 'string', length: 255 })
  name!: string;

  @Property({ type: 'string', length: 32 })
  status!: string;

  @Property({ type: 'string', length: 64 })
  useCase!: string;
}
