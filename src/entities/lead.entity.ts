import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Index, ManyToOne, type Opt, Property, type Rel, Unique } from '@mikro-orm/core';
import { Campaign } from './campaign.entity.js';
import { Contact } from './contact.entity.js';
import { PipelineStage } from './pipeline-stage.entity.js';

/** What a lead's agent is told of it: names of letters, digits and _, each a string, a number or true/false. */
export type LeadVariables = Record<string, string | number | boolean>;

/**
 * A contact as a lead: the campaign it came from, where it stands in a pipeline, and its source. In a campaign it
 * is there once per key (the caller's, else its number), with the variables its agent is given and the time zones
 * its calling hours are kept in (docs/dialer.md).
 */
@Entity({ tableName: 'leads' })
@Index({ name: 'leads_company_id_created_at_index', properties: ['company', 'createdAt'] })
@Unique({ name: 'leads_campaign_id_key_unique', properties: ['campaign', 'key'] })
@Index({ name: 'leads_campaign_id_state_next_attempt_at_index', properties: ['campaign', 'state', 'nextAttemptAt'] })
export class Lead extends CompanyOwned {
  @ManyToOne(() => Contact, { deleteRule: 'cascade', updateRule: 'cascade', index: false })
  contact!: Rel<Contact>;

  @ManyToOne(() => Campaign, { nullable: true, deleteRule: 'set null', updateRule: 'cascade', index: false })
  campaign: Rel<Campaign> | null = null;

  @ManyToOne(() => PipelineStage, { nullable: true, deleteRule: 'set null', updateRule: 'cascade', index: false })
  pipelineStage: Rel<PipelineStage> | null = null;

  @Property({ type: 'string', length: 64, nullable: true })
  source: string | null = null;

  /** Its campaign's key for it: a lead given again with the same key is not added twice. None outside an import. */
  @Property({ type: 'string', length: 255, nullable: true })
  key: string | null = null;

  @Property({ type: 'json', default: '{}' })
  variables: Opt<LeadVariables> = {};

  /** The IANA zone the lead was given with, if any. */
  @Property({ type: 'string', length: 64, nullable: true })
  timeZone: string | null = null;

  /** The zones its calling hours are kept in: its own, else its number's (all of them); none: its company's. */
  @Property({ type: 'json', default: '[]' })
  timeZones: Opt<string[]> = [];

  /** Where it stands in its campaign's dialing (kernel/vocabulary.ts LEAD_STATES); none outside a campaign. */
  @Property({ type: 'string', length: 16, nullable: true })
  state: string | null = null;

  /** Calls placed to it by its campaign. */
  @Property({ type: 'smallint', default: 0 })
  attempts: Opt<number> = 0;

  /** Not dialed before this (a retry's time, or its calling hours' opening); none: as soon as it can be. */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null = null;

  /** The outcome of its latest attempt (kernel/vocabulary.ts DIAL_OUTCOMES). */
  @Property({ type: 'string', length: 16, nullable: true })
  lastOutcome: string | null = null;
}
