import { Entity, ManyToOne, PrimaryKey, Property, Unique, type Rel } from '@mikro-orm/core';
import { Company } from './company.entity.js';
import { Timestamped } from './timestamps.js';

/** An A2P messaging campaign imported from the provider account. */
@Entity({ tableName: 'messaging_campaigns' })
@Unique({ properties: ['company', 'messagingServiceSid'] })
export class MessagingCampaign extends Timestamped {
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Rel<Company>;

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
